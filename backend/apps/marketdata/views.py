"""Market-data REST endpoints: thin views over selectors; errors are JSON `{error: {code, message}}`."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.apps.marketdata import selectors
from backend.apps.marketdata.serializers import (
    ErrorSerializer,
    MarketStatsSerializer,
    SqlRequestSerializer,
    TableResultSerializer,
)
from backend.domain.market.errors import (
    MarketError,
    MemoryLimitExceeded,
    QueryRejected,
    QueryTimeout,
    ResultTooLarge,
    StoreBusy,
    StoreUnavailable,
)

# Most specific first: QueryTimeout and ResultTooLarge are QueryFailed subclasses.
_HTTP_STATUS_BY_ERROR: tuple[tuple[type[MarketError], int], ...] = (
    (QueryRejected, status.HTTP_400_BAD_REQUEST),
    (QueryTimeout, status.HTTP_504_GATEWAY_TIMEOUT),
    (ResultTooLarge, status.HTTP_413_REQUEST_ENTITY_TOO_LARGE),
    (MemoryLimitExceeded, status.HTTP_413_REQUEST_ENTITY_TOO_LARGE),
    (StoreUnavailable, status.HTTP_503_SERVICE_UNAVAILABLE),
    (StoreBusy, status.HTTP_503_SERVICE_UNAVAILABLE),
)


def http_status_for(error: MarketError) -> int:
    for error_class, code in _HTTP_STATUS_BY_ERROR:
        if isinstance(error, error_class):
            return code
    return status.HTTP_400_BAD_REQUEST  # ClickHouse refused the statement (unknown column, syntax…)


def error_body(code: str, message: str, field_errors: dict[str, Any] | None = None) -> dict[str, Any]:
    detail: dict[str, Any] = {"code": code, "message": message}
    if field_errors:
        detail["field_errors"] = field_errors
    return {"error": detail}


def market_error_response(error: MarketError) -> Response:
    response = Response(error_body(error.code, str(error)), status=http_status_for(error))
    if isinstance(error, StoreBusy):
        response["Retry-After"] = str(error.retry_after)
    return response


def invalid_request_response(serializer: serializers.Serializer[Any]) -> Response:
    field_errors = {name: [str(text) for text in texts] for name, texts in serializer.errors.items()}
    summary = "; ".join(f"{name}: {' '.join(texts)}" for name, texts in field_errors.items())
    return Response(error_body("invalid_request", summary, field_errors), status=status.HTTP_400_BAD_REQUEST)


class JsonErrorAPIView(APIView):
    """Every DRF error (malformed JSON, wrong method, wrong media type…) as `{error: {code, message}}`."""

    def handle_exception(self, exc: Exception) -> Response:
        response = super().handle_exception(exc)  # keeps headers such as Allow
        if isinstance(exc, APIException) and isinstance(exc.detail, str):
            response.data = error_body(exc.detail.code or exc.default_code, str(exc.detail))
        return response


class SqlConsoleView(JsonErrorAPIView):
    """Run one guarded read statement against the market database."""

    @extend_schema(
        operation_id="sql_query",
        summary="Run one guarded read-only SQL statement",
        request=SqlRequestSerializer,
        responses={
            200: TableResultSerializer,
            400: ErrorSerializer,
            413: ErrorSerializer,
            503: ErrorSerializer,
            504: ErrorSerializer,
        },
        examples=[
            OpenApiExample(
                "Top closes",
                value={"sql": "SELECT ts_code, close FROM market.daily ORDER BY close DESC LIMIT 5"},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = SqlRequestSerializer(data=request.data)
        if not serializer.is_valid():
            return invalid_request_response(serializer)
        try:
            result = selectors.run_console_query(serializer.validated_data["sql"])
        except MarketError as error:
            return market_error_response(error)
        return Response(TableResultSerializer(result).data)


class MarketStatsView(JsonErrorAPIView):
    """What is loaded: per-table row counts and date ranges, and where the data comes from."""

    @extend_schema(
        operation_id="market_stats",
        summary="Row counts, date ranges and provenance of the market data",
        responses={200: MarketStatsSerializer, 503: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        try:
            overview = selectors.market_overview()
        except MarketError as error:
            return market_error_response(error)
        return Response(MarketStatsSerializer(overview).data)
