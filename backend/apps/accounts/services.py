"""Writes of the accounts app: users with a role, and REST tokens."""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token

from backend.apps.accounts.roles import Role


def create_user(username: str, password: str, role: Role, email: str = "") -> User:
    """An analyst, or an admin (staff and superuser: the Django admin and the paradigm endpoints)."""
    admin = role == "admin"
    return User.objects.create_user(
        username=username, password=password, email=email, is_staff=admin, is_superuser=admin
    )


def issue_token(user: User) -> str:
    """The user's REST token (created once; the same until revoked)."""
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


def revoke_token(user: User) -> None:
    Token.objects.filter(user=user).delete()
