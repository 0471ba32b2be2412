"""Market-data REST endpoints: thin views over selectors; errors are JSON `{error: {code, message}}`."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.apps.marketdata import selectors
from backend.apps.marketdata.serializers import (
    MarketStatsSerializer,
    SqlRequestSerializer,
    TableResultSerializer,
)
from backend.apps.web.errors import invalid_request_response, market_error_response
from backend.apps.web.serializers import ErrorSerializer
from backend.domain.market.errors import MarketError


class SqlConsoleView(APIView):
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


class MarketStatsView(APIView):
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
