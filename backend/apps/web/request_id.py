"""A short random id per request: in the `X-Request-ID` response header, in server-error bodies and on
every log line written while the request runs (web/logs.py), so a user's report leads to the one log record.

The id lives in a context variable: asgiref carries it into the threads that run sync views, and each
ASGI request runs in its own task, so concurrent requests never see each other's id.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponseBase

RESPONSE_HEADER = "X-Request-ID"
META_KEY = "veriscreen.request_id"  # also on the request, for Django's own log lines after the middleware

GetResponse = Callable[[HttpRequest], HttpResponseBase] | Callable[[HttpRequest], Awaitable[HttpResponseBase]]

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


class RequestIdMiddleware:
    """Outermost middleware: everything below it, error handlers included, runs under the id."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response
        self._is_async = iscoroutinefunction(get_response)
        if self._is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponseBase | Awaitable[HttpResponseBase]:
        if self._is_async:
            return self._call_async(request)
        with _new_request_id(request) as request_id:
            response = self.get_response(request)
        assert isinstance(response, HttpResponseBase)
        response[RESPONSE_HEADER] = request_id
        return response

    async def _call_async(self, request: HttpRequest) -> HttpResponseBase:
        with _new_request_id(request) as request_id:
            pending = self.get_response(request)
            assert not isinstance(pending, HttpResponseBase)
            response = await pending
        response[RESPONSE_HEADER] = request_id
        return response
