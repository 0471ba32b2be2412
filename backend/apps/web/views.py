"""Django's error handlers (handler400/403/404/500): JSON bodies under /api/, Django's pages elsewhere.

They answer what happens outside DRF views: unknown API paths, failures in middleware, a request
Django itself refuses. Without DEBUG, Django's pages are the plain ones, never the debug page.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import status

from backend.apps.web.errors import SERVER_ERROR, ApiError, is_api_request, unhandled_error

FORBIDDEN = ApiError(status.HTTP_403_FORBIDDEN, "permission_denied", "this request is not allowed")


def _json_error(error: ApiError) -> JsonResponse:
    return JsonResponse(error.body(), status=error.status)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api_request(request):
        return defaults.bad_request(request, exception)
    return _json_error(unhandled_error(exception))


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api_request(request):
        return defaults.permission_denied(request, exception)
    return _json_error(FORBIDDEN)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api_request(request):
        return defaults.page_not_found(request, exception)
    return _json_error(ApiError(status.HTTP_404_NOT_FOUND, "not_found", f"no API endpoint at {request.path}"))


def server_error(request: HttpRequest) -> HttpResponse:
    # Django does not pass the exception (under ASGI it is not even the thread's current one): the
    # failure was logged with the request id before this runs.
    if not is_api_request(request):
        return defaults.server_error(request)
    return _json_error(SERVER_ERROR)
