"""The single-page app at / and the ask API."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.apps.screening import services
from backend.apps.screening.answers import AskAnswer, InvalidQuestion
from backend.apps.screening.serializers import (
    AskAnswerSerializer,
    AskRequestSerializer,
    ValidateRequestSerializer,
)
from backend.apps.web.errors import error_body, invalid_request_response, market_error_response
from backend.apps.web.serializers import ErrorSerializer
from backend.domain.market.errors import StoreBusy

FRONTEND_NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>VeriScreen — frontend not built</title></head>
<body style="font-family: sans-serif; margin: 3rem">
<h1>VeriScreen: frontend not built</h1>
<p>The React app has not been built yet (<code>frontend/dist/index.html</code> is missing).</p>
<p>Run <code>make run</code> (or <code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>).</p>
<p>The REST API works meanwhile: <a href="/api/docs/">/api/docs/</a>.</p>
</body></html>
"""


@require_safe
@ensure_csrf_cookie  # the app reads the token from the cookie for its POSTs
def spa_index(request: HttpRequest) -> HttpResponse:
    index = settings.FRONTEND_DIST / "index.html"
    try:
        html = index.read_text(encoding="utf-8")
    except FileNotFoundError:
        return HttpResponse(FRONTEND_NOT_BUILT, status=503)
    response = HttpResponse(html)
    response["Cache-Control"] = "no-cache"  # hashed assets are cached; the entry page is not
    return response


def _respond(answer_of: Callable[[], AskAnswer]) -> Response:
    """The answer as JSON: 200 whatever its status, 400 for a question that cannot be asked, 503 when
    the store is busy (with Retry-After) or unreachable (with the answer's body)."""
    try:
        answer = answer_of()
    except InvalidQuestion as error:
        return Response(error_body("invalid_request", str(error)), status=status.HTTP_400_BAD_REQUEST)
    except StoreBusy as error:
        return market_error_response(error)
    body = AskAnswerSerializer(answer.to_dict()).data
    if answer.status == "store_unavailable":
        return Response(
            {**body, **error_body(answer.status, answer.message)},
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
        )
    return Response(body)


class AskView(APIView):
    """Answer a question: translate it, run the SQL through the guard, validate it, return every step."""

    @extend_schema(
        operation_id="ask",
        summary="Answer a screening question in Chinese or English, checked by the validation pipeline",
        description=(
            "200 for every answered question, whatever its status (verified, corrected, unverified with "
            "a risk warning, not understood, refused SQL, timeout…: see `status`, `warnings` and "
            "`checks`); 400 for an empty or too long question; 503 with the same body when the market "
            "store cannot be reached."
        ),
        request=AskRequestSerializer,
        responses={200: AskAnswerSerializer, 400: ErrorSerializer, 503: AskAnswerSerializer},
        examples=[
            OpenApiExample(
                "Seed example", value={"question": "2025年9月8日收盘价最高的上交所股票"}, request_only=True
            )
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = AskRequestSerializer(data=request.data)
        if not serializer.is_valid():
            return invalid_request_response(serializer)
        return _respond(lambda: services.answer_question(serializer.validated_data["question"]))


class ValidateView(APIView):
    """Validate a given SQL for a question: it replaces the generated first SQL."""

    @extend_schema(
        operation_id="validate",
        summary="Validate a candidate SQL for a question (and correct it unless told not to)",
        description=(
            "The candidate runs through the guard and the checks as the first SQL of the pipeline; "
            "with `correct` (default) a failing candidate is regenerated at most PIPELINE_MAX_ROUNDS "
            "times. Same answer shape and statuses as /api/ask/."
        ),
        request=ValidateRequestSerializer,
        responses={200: AskAnswerSerializer, 400: ErrorSerializer, 503: AskAnswerSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = ValidateRequestSerializer(data=request.data)
        if not serializer.is_valid():
            return invalid_request_response(serializer)
        data = serializer.validated_data
        return _respond(
            lambda: services.answer_question(
                data["question"], candidate_sql=data["sql"], correct=data["correct"]
            )
        )
