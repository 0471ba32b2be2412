"""The scaffolding of a middleware that Django runs in a sync and in an async stack alike, without
wrapping it in an adapter thread: the subclass writes one handler per kind of stack."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponseBase

GetResponse = Callable[[HttpRequest], HttpResponseBase] | Callable[[HttpRequest], Awaitable[HttpResponseBase]]


class SyncAndAsyncMiddleware:
    """Calls `handle` under WSGI (or a sync stack) and `handle_async` under ASGI; both reach the rest of
    the stack through `respond` / `respond_async`."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response
        self._is_async = iscoroutinefunction(get_response)
        if self._is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponseBase | Awaitable[HttpResponseBase]:
        if self._is_async:
            return self.handle_async(request)
        return self.handle(request)

    def respond(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        assert isinstance(response, HttpResponseBase)
        return response

    async def respond_async(self, request: HttpRequest) -> HttpResponseBase:
        pending = self.get_response(request)
        assert not isinstance(pending, HttpResponseBase)
        return await pending

    def handle(self, request: HttpRequest) -> HttpResponseBase:
        raise NotImplementedError

    async def handle_async(self, request: HttpRequest) -> HttpResponseBase:
        raise NotImplementedError
