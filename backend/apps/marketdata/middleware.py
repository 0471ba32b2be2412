"""Every request's market queries run in an execution context: who asks (for fair admission) and a
cancel token that fires when the client disconnects, so its running queries are stopped.

Under ASGI, Django cancels the request's task when the client goes away; sync views run in a thread
that does not notice, so the cancellation is relayed to the store through the token.
"""

from __future__ import annotations

import asyncio
import hashlib

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from backend.apps.web.middleware import SyncAndAsyncMiddleware
from backend.domain.market.execution import CancelToken, execution_context


def requester_of(request: HttpRequest) -> str:
    """The fairness key without touching the database: the API token, else the browser session or
    CSRF cookie, else the client address. It decides only whose turn it is, never what anyone may read."""
    credential = request.headers.get("Authorization") or request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    credential = credential or request.COOKIES.get(settings.CSRF_COOKIE_NAME)
    if credential:
        return "client:" + hashlib.sha256(credential.encode()).hexdigest()[:16]
    return "addr:" + str(request.META.get("REMOTE_ADDR", "unknown"))


class QueryExecutionMiddleware(SyncAndAsyncMiddleware):
    def handle(self, request: HttpRequest) -> HttpResponseBase:
        with execution_context(requester_of(request)):
            return self.respond(request)

    async def handle_async(self, request: HttpRequest) -> HttpResponseBase:
        cancel = CancelToken()
        with execution_context(requester_of(request), cancel):
            try:
                return await self.respond_async(request)
            except asyncio.CancelledError:
                cancel.cancel()  # the client disconnected: stop its queries
                raise
