"""A short random id per request: in the `X-Request-ID` response header, in server-error bodies and on
every log line written while the request runs (web/logs.py), so a user's report leads to the one log record.

The id lives in a context variable: asgiref carries it into the threads that run sync views, and each
ASGI request runs in its own task, so concurrent requests never see each other's id.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.http import HttpRequest, HttpResponseBase

from backend.apps.web.middleware import SyncAndAsyncMiddleware

RESPONSE_HEADER = "X-Request-ID"
META_KEY = "veriscreen.request_id"  # also on the request, for Django's own log lines after the middleware

_current: ContextVar[str | None] = ContextVar("veriscreen_request_id", default=None)


def current_request_id() -> str | None:
    return _current.get()


@contextmanager
def _new_request_id(request: HttpRequest) -> Iterator[str]:
    request_id = secrets.token_hex(8)
    request.META[META_KEY] = request_id
    token = _current.set(request_id)
    try:
        yield request_id
    finally:
        _current.reset(token)


class RequestIdMiddleware(SyncAndAsyncMiddleware):
    """Outermost middleware: everything below it, error handlers included, runs under the id."""

    def handle(self, request: HttpRequest) -> HttpResponseBase:
        with _new_request_id(request) as request_id:
            response = self.respond(request)
        response[RESPONSE_HEADER] = request_id
        return response

    async def handle_async(self, request: HttpRequest) -> HttpResponseBase:
        with _new_request_id(request) as request_id:
            response = await self.respond_async(request)
        response[RESPONSE_HEADER] = request_id
        return response
