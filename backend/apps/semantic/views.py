"""GET /api/semantic/ (metrics, units, synonyms) and /api/semantic/concepts/ (the concept catalogue)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.apps.semantic import selectors
from backend.apps.semantic.serializers import ConceptSerializer, SemanticModelSerializer
from backend.apps.web.serializers import ErrorSerializer

AUTH_ERRORS = {401: ErrorSerializer, 403: ErrorSerializer, 429: ErrorSerializer}


class SemanticModelView(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="semantic_model",
        summary="What can be asked: metrics with units and words, dimensions, exchanges, boards, industries",
        responses={200: SemanticModelSerializer, **AUTH_ERRORS},
    )
    def get(self, request: Request) -> Response:
        return Response(SemanticModelSerializer(selectors.semantic_overview()).data)


class ConceptsView(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="semantic_concepts",
        summary="The concept catalogue: words, definition, units, examples, supported or planned",
        parameters=[
            OpenApiParameter("family", OpenApiTypes.STR, description="prices, returns, valuation, …"),
            OpenApiParameter("status", OpenApiTypes.STR, enum=["supported", "planned"]),
        ],
        responses={200: ConceptSerializer(many=True), **AUTH_ERRORS},
    )
    def get(self, request: Request) -> Response:
        found = selectors.concepts(
            request.query_params.get("family", ""), request.query_params.get("status", "")
        )
        return Response(ConceptSerializer(found, many=True).data)
