"""Error bodies `{error: {code, message}}` and what an exception no view handled becomes for a client.

A client never sees an exception's own text: it can hold a database URL, credentials or other users'
rows. A server error names the request id instead, and the server log holds the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import BadRequest, RequestDataTooBig, SuspiciousOperation
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest
from rest_framework import serializers, status
from rest_framework.response import Response

from backend.apps.web.request_id import current_request_id
from backend.domain.market.errors import (
    MarketError,
    MemoryLimitExceeded,
    QueryRejected,
    QueryTimeout,
    ResultTooLarge,
    StoreBusy,
    StoreUnavailable,
)

API_PREFIX = "/api/"


def is_api_request(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def error_body(
    code: str,
    message: str,
    field_errors: dict[str, list[str]] | None = None,
    request_id: str | None = None,
) -> dict[str, Any]:
    detail: dict[str, Any] = {"code": code, "message": message}
    if field_errors:
        detail["field_errors"] = field_errors
    if request_id:
        detail["request_id"] = request_id
    return {"error": detail}


def invalid_request_body(errors: Mapping[str, Any]) -> dict[str, Any]:
    """Validation messages per field, and all of them in one line as the message."""
    field_errors = {
        name: [str(text) for text in (texts if isinstance(texts, list) else [texts])]
        for name, texts in errors.items()
    }
    summary = "; ".join(f"{name}: {' '.join(texts)}" for name, texts in field_errors.items())
    return error_body("invalid_request", summary, field_errors)


def invalid_request_response(serializer: serializers.Serializer[Any]) -> Response:
    return Response(invalid_request_body(serializer.errors), status=status.HTTP_400_BAD_REQUEST)


# Most specific first: QueryTimeout and ResultTooLarge are QueryFailed subclasses.
_HTTP_STATUS_BY_MARKET_ERROR: tuple[tuple[type[MarketError], int], ...] = (
    (QueryRejected, status.HTTP_400_BAD_REQUEST),
    (QueryTimeout, status.HTTP_504_GATEWAY_TIMEOUT),
    (ResultTooLarge, status.HTTP_413_REQUEST_ENTITY_TOO_LARGE),
    (MemoryLimitExceeded, status.HTTP_413_REQUEST_ENTITY_TOO_LARGE),
    (StoreUnavailable, status.HTTP_503_SERVICE_UNAVAILABLE),
    (StoreBusy, status.HTTP_503_SERVICE_UNAVAILABLE),
)


def http_status_for(error: MarketError) -> int:
    for error_class, code in _HTTP_STATUS_BY_MARKET_ERROR:
        if isinstance(error, error_class):
            return code
    return status.HTTP_400_BAD_REQUEST  # ClickHouse refused the statement (unknown column, syntax…)


def market_error_response(error: MarketError) -> Response:
    """Market errors carry messages written for analysts (the store keeps settings and paths out)."""
    response = Response(error_body(error.code, str(error)), status=http_status_for(error))
    if isinstance(error, StoreBusy):
        response["Retry-After"] = str(error.retry_after)
    return response


@dataclass(frozen=True)
class ApiError:
    status: int
    code: str
    message: str

    def body(self) -> dict[str, Any]:
        server_error = self.status >= status.HTTP_500_INTERNAL_SERVER_ERROR
        return error_body(self.code, self.message, request_id=current_request_id() if server_error else None)


SERVER_ERROR = ApiError(
    status.HTTP_500_INTERNAL_SERVER_ERROR,
    "server_error",
    "the server failed to answer this request; quote the request id when reporting it",
)


def unhandled_error(exc: BaseException | None) -> ApiError:
    """The client-facing error for an exception that no view turned into a response."""
    if isinstance(exc, RequestDataTooBig):
        return ApiError(
            status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
            "request_too_large",
            f"the request body is larger than the {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes "
            "this API accepts (API_MAX_BODY_BYTES)",
        )
    if isinstance(exc, SuspiciousOperation | BadRequest):
        return ApiError(status.HTTP_400_BAD_REQUEST, "bad_request", "the request could not be read")
    if isinstance(exc, OperationalError | InterfaceError):
        return ApiError(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            "database_unavailable",
            "the application database cannot be reached; try again later",
        )
    return SERVER_ERROR
