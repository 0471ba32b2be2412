"""Django migrations and the ORM on a real PostgreSQL, in a separate process configured only by
DATABASE_URL, exactly as production is."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.production.services import ROOT, fresh_postgres_database, subprocess_environment

pytestmark = pytest.mark.production

ORM_ROUND_TRIP = """
import json
from django.contrib.auth.models import Group, User
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor

executor = MigrationExecutor(connection)
unapplied = executor.migration_plan(executor.loader.graph.leaf_nodes())

analyst = User.objects.create_user("analyst", password="s3cret-pass")
group = Group.objects.create(name="screeners")
analyst.groups.add(group)
try:
    with transaction.atomic():
        User.objects.create_user("rolled-back")
        raise RuntimeError("roll back")
except RuntimeError:
    pass
print(json.dumps({
    "unapplied_migrations": [str(migration) for migration, _ in unapplied],
    "applied_apps": sorted({app for app, _ in executor.loader.applied_migrations}),
    "vendor": connection.vendor,
    "server_version": connection.pg_version,
    "users": sorted(User.objects.values_list("username", flat=True)),
    "groups_of_analyst": list(User.objects.get(username="analyst").groups.values_list("name", flat=True)),
    "password_ok": User.objects.get(username="analyst").check_password("s3cret-pass"),
    "aware_join_date": User.objects.get(username="analyst").date_joined.tzinfo is not None,
}))
"""


def _manage(database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=subprocess_environment(DATABASE_URL=database_url),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_migrations_and_orm_on_postgresql() -> None:
    with fresh_postgres_database() as database_url:
        migrated = _manage(database_url, "migrate", "--noinput")
        assert migrated.returncode == 0, migrated.stderr

        shell = _manage(database_url, "shell", "-c", ORM_ROUND_TRIP)
        assert shell.returncode == 0, shell.stderr
        outcome = json.loads(shell.stdout.strip().splitlines()[-1])
        assert outcome["unapplied_migrations"] == []
        assert {"auth", "contenttypes", "sessions", "admin"} <= set(outcome["applied_apps"])
        assert outcome["vendor"] == "postgresql"
        assert outcome["server_version"] > 0
        assert outcome["users"] == ["analyst"]
        assert outcome["groups_of_analyst"] == ["screeners"]
        assert outcome["password_ok"] is True
        assert outcome["aware_join_date"] is True
