"""Every request's market queries run in an execution context: who asks (for fair admission) and a
cancel token that fires when the client disconnects, so its running queries are stopped.

Under ASGI, Django cancels the request's task when the client goes away; sync views run in a thread
that does not notice, so the cancellation is relayed to the store through the token.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from backend.domain.market.execution import CancelToken, execution_context

GetResponse = Callable[[HttpRequest], HttpResponseBase] | Callable[[HttpRequest], Awaitable[HttpResponseBase]]


def requester_of(request: HttpRequest) -> str:
    """The fairness key without touching the database: the API token, else the browser session or
    CSRF cookie, else the client address. It decides only whose turn it is, never what anyone may read."""
    credential = request.headers.get("Authorization") or request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    credential = credential or request.COOKIES.get(settings.CSRF_COOKIE_NAME)
    if credential:
        return "client:" + hashlib.sha256(credential.encode()).hexdigest()[:16]
    return "addr:" + str(request.META.get("REMOTE_ADDR", "unknown"))


class QueryExecutionMiddleware:
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
        with execution_context(requester_of(request)):
            response = self.get_response(request)
        assert isinstance(response, HttpResponseBase)
        return response

    async def _call_async(self, request: HttpRequest) -> HttpResponseBase:
        cancel = CancelToken()
        with execution_context(requester_of(request), cancel):
            try:
                response = self.get_response(request)
                assert not isinstance(response, HttpResponseBase)
                return await response
            except asyncio.CancelledError:
                cancel.cancel()  # the client disconnected: stop its queries
                raise
