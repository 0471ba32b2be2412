"""WebSocket authentication for REST clients: `Authorization: Token <key>` on the handshake.

Browsers authenticate sockets with their session cookie (channels' AuthMiddlewareStack); a client
that sends a token header is the token's user instead.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from django.contrib.auth.models import AnonymousUser
from rest_framework.authtoken.models import Token


def _token_of(headers: list[tuple[bytes, bytes]]) -> str | None:
    for name, value in headers:
        if name.lower() == b"authorization":
            scheme, _, key = value.decode("latin-1").partition(" ")
            if scheme.lower() == "token" and key.strip():
                return key.strip()
    return None


@database_sync_to_async
def _user_of_token(key: str) -> Any:
    token = Token.objects.select_related("user").filter(key=key, user__is_active=True).first()
    return token.user if token is not None else AnonymousUser()


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        key = _token_of(scope.get("headers", []))
        if key is not None:
            scope = {**scope, "user": await _user_of_token(key)}
        return await super().__call__(scope, receive, send)
