"""System checks of the web app."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.core.checks import CheckMessage, Error
from django.db import DatabaseError, connections


def _connection_failure(alias: str) -> str | None:
    connection = connections[alias]
    was_open = connection.connection is not None
    try:
        connection.ensure_connection()
    except DatabaseError as error:
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        password = str(connection.settings_dict.get("PASSWORD") or "")
        return first_line.replace(password, "***") if password else first_line
    finally:
        if not was_open:
            connection.close()  # a check leaves no connection behind in the thread that ran it
    return None


def database_reachable(
    app_configs: Sequence[AppConfig] | None, databases: Sequence[str] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """Every ORM database answers a connection.

    Runs with every `check`, not only with `check --database`: a wrong DATABASE_URL otherwise passes
    silently and then fails every request that carries a session cookie.
    """
    errors: list[CheckMessage] = []
    for alias in databases if databases is not None else list(connections):
        failure = _connection_failure(alias)
        if failure is None:
            continue
        settings_dict = connections[alias].settings_dict
        where = f"{settings_dict['ENGINE'].rsplit('.', 1)[-1]} database {settings_dict.get('NAME')!s}"
        if settings_dict.get("HOST"):
            where += f" on {settings_dict['HOST']}:{settings_dict.get('PORT') or 'default port'}"
        errors.append(
            Error(
                f"the {alias!r} {where} cannot be reached: {failure}",
                hint="Check DATABASE_URL and that the database server runs; sessions and the admin need it.",
                id="web.E001",
            )
        )
    return errors
