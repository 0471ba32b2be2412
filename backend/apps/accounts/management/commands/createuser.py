"""`manage.py createuser NAME --role analyst|admin [--password P] [--token]` (prompts for the password
when it is not given)."""

from __future__ import annotations

import getpass
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from backend.apps.accounts.roles import ROLES
from backend.apps.accounts.services import create_user, issue_token


class Command(BaseCommand):
    help = "Create an analyst or an admin (staff) user; optionally print a REST token for it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--role", choices=ROLES, default="analyst")
        parser.add_argument("--email", default="")
        parser.add_argument("--password", help="the password (prompted for when not given)")
        parser.add_argument("--token", action="store_true", help="also create and print a REST API token")

    def handle(self, *args: Any, **options: Any) -> None:
        username: str = options["username"]
        if get_user_model().objects.filter(username=username).exists():
            raise CommandError(f"a user named {username!r} exists already")
        password: str | None = options["password"]
        if password is None:
            password = getpass.getpass("Password: ")
        if not password:
            raise CommandError("the password is empty")
        user = create_user(username, password, options["role"], options["email"])
        self.stdout.write(f"created {options['role']} {username}")
        if options["token"]:
            self.stdout.write(f"token {issue_token(user)}")
