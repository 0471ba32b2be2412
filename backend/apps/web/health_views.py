"""GET /api/health/live/ and /api/health/ready/ (no login: for load balancers and orchestrators)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.apps.web.health import readiness
from backend.apps.web.serializers import HealthSerializer


class LivenessView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = ()

    @extend_schema(
        operation_id="health_live", summary="The process answers", responses={200: HealthSerializer}
    )
    def get(self, request: Request) -> Response:
        return Response(HealthSerializer({"status": "ok", "checks": []}).data)


class ReadinessView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = ()

    @extend_schema(
        operation_id="health_ready",
        summary="ORM, channel layer, broker (production), ClickHouse and model endpoints (when used) answer",
        responses={200: HealthSerializer, 503: HealthSerializer},
    )
    def get(self, request: Request) -> Response:
        checks = readiness()
        ready = all(check.state != "failed" for check in checks)
        body = HealthSerializer({"status": "ok" if ready else "unavailable", "checks": checks}).data
        return Response(body, status=status.HTTP_200_OK if ready else status.HTTP_503_SERVICE_UNAVAILABLE)
