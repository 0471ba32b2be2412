"""Limits on password guessing at the two endpoints that take credentials (login and token).

The general anonymous rate is meant for browsing and is far too generous for guessing passwords, so
credential posts are counted on their own: per client address, and per username across addresses (a
guesser who rotates addresses still meets the second limit).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle


class CredentialAttemptsPerAddress(SimpleRateThrottle):
    scope = "credentials"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class CredentialAttemptsPerUsername(SimpleRateThrottle):
    scope = "credentials_user"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        data = request.data
        username = data.get("username") if isinstance(data, Mapping) else None
        if not isinstance(username, str) or not username.strip():
            return None  # nothing to guess against; the serializer refuses the request
        # Hashed: the cache key must not carry what a user typed.
        ident = hashlib.sha256(username.strip().lower().encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}


CREDENTIAL_THROTTLES = (CredentialAttemptsPerAddress, CredentialAttemptsPerUsername)
