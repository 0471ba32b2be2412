"""DRF's EXCEPTION_HANDLER: every error of every API view, 500 included, as `{error: {code, message}}`."""

from __future__ import annotations

from typing import Any

from django.utils.log import log_response
from rest_framework import status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from backend.apps.web.errors import error_body, invalid_request_body, market_error_response, unhandled_error
from backend.domain.market.errors import MarketError


def _body_of_drf_error(data: Any) -> dict[str, Any]:
    if isinstance(data, dict) and set(data) == {"detail"}:
        detail = data["detail"]  # an ErrorDetail: a str with the exception's stable code
        return error_body(getattr(detail, "code", None) or "error", str(detail))
    if isinstance(data, dict):
        return invalid_request_body(data)
    return error_body("invalid_request", " ".join(str(item) for item in data))


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    # Errors are JSON whatever the client negotiated (a browser's HTML, the schema's YAML).
    request = context["request"]
    request.accepted_renderer, request.accepted_media_type = JSONRenderer(), "application/json"
    # DRF answers its own exceptions, Http404 and PermissionDenied (status and headers such as Allow or
    # Retry-After); only the body's shape changes.
    response = exception_handler(exc, context)
    if response is not None:
        response.data = _body_of_drf_error(response.data)
        return response
    if isinstance(exc, MarketError):
        return market_error_response(exc)
    error = unhandled_error(exc)
    response = Response(error.body(), status=error.status)
    if error.status >= status.HTTP_500_INTERNAL_SERVER_ERROR:
        set_rollback()
        # Logged the way Django logs an uncaught exception, once: the response is marked as logged.
        # The record names the path and the request id, never the body or any result.
        django_request = request._request
        log_response(
            "%s: %s",
            response.reason_phrase,
            django_request.path,
            response=response,
            request=django_request,
            exception=exc,
        )
    return response
