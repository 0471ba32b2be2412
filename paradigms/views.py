"""Paradigm curation REST endpoints (admin role: staff users only). Thin views over selectors
(reads) and services/curation (writes); errors are JSON `{error: {code, message}}`."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.apps.web.errors import error_body, invalid_request_response, market_error_response
from backend.apps.web.serializers import ErrorSerializer
from backend.domain.market.errors import MarketError
from backend.domain.paradigms.exchange import ExchangeFileError, read_exchange, write_exchange
from paradigms import curation, selectors, services
from paradigms.models import Paradigm
from paradigms.serializers import (
    ImportReportSerializer,
    ImportSerializer,
    LibraryStatsSerializer,
    ParadigmDetailSerializer,
    ParadigmListQuerySerializer,
    ParadigmPageSerializer,
    ParadigmSummarySerializer,
    PinSerializer,
    SqlEditSerializer,
)

DENIED = {401: ErrorSerializer, 403: ErrorSerializer}


class _CuratorView(APIView):
    permission_classes = (IsAdminUser,)


def _detail(paradigm_id: int) -> Paradigm:
    try:
        return selectors.paradigm_detail(paradigm_id, services.library_today())
    except Paradigm.DoesNotExist:
        raise NotFound(f"no paradigm {paradigm_id}") from None


class ParadigmListView(_CuratorView):
    @extend_schema(
        operation_id="paradigms_list",
        summary="List and search the paradigm library (newest first)",
        parameters=[ParadigmListQuerySerializer],
        responses={200: ParadigmPageSerializer, 400: ErrorSerializer, **DENIED},
    )
    def get(self, request: Request) -> Response:
        query = ParadigmListQuerySerializer(data=request.query_params)
        if not query.is_valid():
            return invalid_request_response(query)
        options = query.validated_data
        paradigms = selectors.paradigm_list(
            today=services.library_today(),
            search=options.get("search", ""),
            pinned=options["pinned"],
            origin=options.get("origin"),
        )
        page = paradigms[options["offset"] : options["offset"] + options["limit"]]
        results = ParadigmSummarySerializer(page, many=True).data
        return Response({"count": paradigms.count(), "results": results})


class ParadigmDetailView(_CuratorView):
    @extend_schema(
        operation_id="paradigms_detail",
        summary="One paradigm: question, QST (JSON and indented tree), SQL template, use figures",
        responses={200: ParadigmDetailSerializer, 404: ErrorSerializer, **DENIED},
    )
    def get(self, request: Request, paradigm_id: int) -> Response:
        return Response(ParadigmDetailSerializer(_detail(paradigm_id)).data)

    @extend_schema(
        operation_id="paradigms_edit_sql",
        summary="Replace a paradigm's SQL: guard-checked and verified on its own question first",
        request=SqlEditSerializer,
        responses={
            200: ParadigmDetailSerializer,
            400: ErrorSerializer,
            404: ErrorSerializer,
            422: OpenApiResponse(ErrorSerializer, description="refused: guard, validation or template"),
            503: ErrorSerializer,
            **DENIED,
        },
    )
    def patch(self, request: Request, paradigm_id: int) -> Response:
        serializer = SqlEditSerializer(data=request.data)
        if not serializer.is_valid():
            return invalid_request_response(serializer)
        try:
            curation.edit_sql(paradigm_id, serializer.validated_data["sql"])
        except Paradigm.DoesNotExist:
            raise NotFound(f"no paradigm {paradigm_id}") from None
        except curation.CurationRefused as refusal:
            return Response(
                error_body("edit_refused", str(refusal)), status=status.HTTP_422_UNPROCESSABLE_ENTITY
            )
        except MarketError as error:
            return market_error_response(error)
        return Response(ParadigmDetailSerializer(_detail(paradigm_id)).data)

    @extend_schema(
        operation_id="paradigms_delete",
        summary="Delete a paradigm (its uses go with it; daily library counters stay)",
        responses={204: None, 404: ErrorSerializer, **DENIED},
    )
    def delete(self, request: Request, paradigm_id: int) -> Response:
        if not services.delete_paradigm(paradigm_id):
            raise NotFound(f"no paradigm {paradigm_id}")
        return Response(status=status.HTTP_204_NO_CONTENT)


class ParadigmPinView(_CuratorView):
    @extend_schema(
        operation_id="paradigms_pin",
        summary="Pin (never evicted) or unpin a paradigm",
        request=PinSerializer,
        responses={200: ParadigmDetailSerializer, 400: ErrorSerializer, 404: ErrorSerializer, **DENIED},
    )
    def post(self, request: Request, paradigm_id: int) -> Response:
        serializer = PinSerializer(data=request.data)
        if not serializer.is_valid():
            return invalid_request_response(serializer)
        try:
            services.set_pinned(paradigm_id, serializer.validated_data["pinned"])
        except Paradigm.DoesNotExist:
            raise NotFound(f"no paradigm {paradigm_id}") from None
        return Response(ParadigmDetailSerializer(_detail(paradigm_id)).data)


class ParadigmExportView(_CuratorView):
    @extend_schema(
        operation_id="paradigms_export",
        summary="Export the library as a YAML file (question, QST, SQL, status, pinned)",
        responses={(200, "application/yaml"): OpenApiTypes.STR, **DENIED},
    )
    def get(self, request: Request) -> HttpResponse:
        response = HttpResponse(
            write_exchange(selectors.exported_paradigms()), content_type="application/yaml; charset=utf-8"
        )
        response["Content-Disposition"] = 'attachment; filename="paradigms.yaml"'
        return response


class ParadigmImportView(_CuratorView):
    @extend_schema(
        operation_id="paradigms_import",
        summary="Import an export file: each paradigm through the insert checks (QST, guard, template)",
        request=ImportSerializer,
        responses={200: ImportReportSerializer, 400: ErrorSerializer, **DENIED},
    )
    def post(self, request: Request) -> Response:
        serializer = ImportSerializer(data=request.data)
        if not serializer.is_valid():
            return invalid_request_response(serializer)
        try:
            entries = read_exchange(serializer.validated_data["yaml"])
        except ExchangeFileError as error:
            return Response(error_body("invalid_file", str(error)), status=status.HTTP_400_BAD_REQUEST)
        return Response(ImportReportSerializer(services.import_paradigms(entries).to_dict()).data)


class ParadigmStatsView(_CuratorView):
    @extend_schema(
        operation_id="paradigms_stats",
        summary="Library statistics: size, capacity, τ, hits, misses, evictions, hit rate per day",
        responses={200: LibraryStatsSerializer, **DENIED},
    )
    def get(self, request: Request) -> Response:
        stats = {**selectors.library_stats(), "history": selectors.library_history(services.library_today())}
        return Response(LibraryStatsSerializer(stats).data)
