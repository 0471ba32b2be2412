"""The two roles: an analyst asks and saves screens; an admin (a staff user) also curates paradigms and
may read every user's jobs."""

from __future__ import annotations

from typing import Literal

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.http import HttpRequest
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

Role = Literal["analyst", "admin"]
ROLES: tuple[Role, ...] = ("analyst", "admin")


def role_of(user: AbstractBaseUser | AnonymousUser) -> Role:
    return "admin" if getattr(user, "is_staff", False) else "analyst"


def signed_in(request: HttpRequest | Request) -> User:
    """The request's user in a view that requires a login (IsAuthenticated ran before)."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user
