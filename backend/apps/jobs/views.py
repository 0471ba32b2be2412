"""The jobs API: ask (creates a job), my jobs, a job's status, result (paginated, CSV), events, cancel.

A job of another user is a 404 (whether it exists is not told); an admin (staff) reads every job.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.apps.accounts.roles import signed_in
from backend.apps.jobs import selectors, services
from backend.apps.jobs.models import Job, JobStatus
from backend.apps.jobs.results import DEFAULT_PAGE_SIZE, csv_response, result_page
from backend.apps.jobs.serializers import (
    AskJobRequestSerializer,
    JobEventsSerializer,
    JobResultSerializer,
    JobSerializer,
)
from backend.apps.screening.answers import InvalidQuestion
from backend.apps.web.errors import error_body, invalid_request_response
from backend.apps.web.serializers import ErrorSerializer

NOT_FOUND = {404: ErrorSerializer}
AUTH_ERRORS = {401: ErrorSerializer, 403: ErrorSerializer, 429: ErrorSerializer}
PAGE_PARAMETERS = [
    OpenApiParameter("page", OpenApiTypes.INT, description="1-based page number (default 1)"),
    OpenApiParameter(
        "page_size",
        OpenApiTypes.INT,
        description=f"rows per page (default {DEFAULT_PAGE_SIZE}, at most 1000)",
    ),
]


def int_parameter(request: Request, name: str, default: int) -> int:
    try:
        return int(request.query_params.get(name, default))
    except ValueError:
        return default


def job_or_404(request: Request, job_id: int) -> Job | Response:
    try:
        return selectors.job_with_result(request.user, job_id)
    except Job.DoesNotExist:
        return Response(error_body("not_found", f"no job {job_id}"), status=status.HTTP_404_NOT_FOUND)


def finished_result_or_409(job: Job) -> Response | None:
    if job.status == JobStatus.DONE and job.result is not None:
        return None
    code, message = (
        ("job_not_finished", "the job has not finished yet; follow its events")
        if not job.finished
        else ("no_result", f"the job ended {job.status} without a result")
    )
    return Response(error_body(code, message), status=status.HTTP_409_CONFLICT)


def result_response(request: Request, job: Job) -> Response:
    missing = finished_result_or_409(job)
    if missing is not None:
        return missing
    page = result_page(job, int_parameter(request, "page", 1), int_parameter(request, "page_size", 100))
    return Response(JobResultSerializer(page).data)


def submit_response(request: Request, question: str, screen: Any = None) -> Response:
    try:
        job = services.submit_job(owner=signed_in(request), question=question, screen=screen)
    except InvalidQuestion as error:
        return Response(error_body("invalid_request", str(error)), status=status.HTTP_400_BAD_REQUEST)
    return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class JobListCreateView(generics.GenericAPIView[Job]):
    permission_classes = (IsAuthenticated,)
    serializer_class = JobSerializer

    def get_queryset(self) -> QuerySet[Job]:
        return selectors.own_jobs(signed_in(self.request))

    @extend_schema(
        operation_id="jobs_list",
        summary="My jobs, newest first (history)",
        responses={200: JobSerializer(many=True), **AUTH_ERRORS},
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(JobSerializer(page, many=True).data)

    @extend_schema(
        operation_id="jobs_ask",
        summary="Ask a question: creates a job and returns it at once (202)",
        description=(
            "The job runs in the background; follow its events on the WebSocket `stream` "
            "(or GET /api/jobs/{id}/events/) and read its result at /api/jobs/{id}/result/ once done."
        ),
        request=AskJobRequestSerializer,
        responses={202: JobSerializer, 400: ErrorSerializer, **AUTH_ERRORS},
        examples=[
            OpenApiExample(
                "Seed", value={"question": "2025年9月8日收盘价最高的上交所股票"}, request_only=True
            )
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = AskJobRequestSerializer(data=request.data)
        if not serializer.is_valid():
            return invalid_request_response(serializer)
        return submit_response(request, serializer.validated_data["question"])


class JobDetailView(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="jobs_retrieve",
        summary="A job's status and result summary",
        responses={200: JobSerializer, **NOT_FOUND, **AUTH_ERRORS},
    )
    def get(self, request: Request, job_id: int) -> Response:
        job = job_or_404(request, job_id)
        return job if isinstance(job, Response) else Response(JobSerializer(job).data)


class JobResultView(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="jobs_result",
        summary="A finished job's result: one page of rows, with the checks and SQL",
        parameters=PAGE_PARAMETERS,
        responses={200: JobResultSerializer, 409: ErrorSerializer, **NOT_FOUND, **AUTH_ERRORS},
    )
    def get(self, request: Request, job_id: int) -> Response:
        job = job_or_404(request, job_id)
        return job if isinstance(job, Response) else result_response(request, job)


class JobResultCsvView(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="jobs_result_csv",
        summary="A finished job's rows as CSV (UTF-8 with a byte-order mark)",
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR),
            409: ErrorSerializer,
            **NOT_FOUND,
            **AUTH_ERRORS,
        },
    )
    def get(self, request: Request, job_id: int) -> HttpResponseBase:
        job = job_or_404(request, job_id)
        if isinstance(job, Response):
            return job
        return finished_result_or_409(job) or csv_response(job, f"veriscreen-job-{job.pk}.csv")


class JobEventsView(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="jobs_events",
        summary="A job's stored events after `after` (the WebSocket stream, for polling clients)",
        parameters=[OpenApiParameter("after", OpenApiTypes.INT, description="last seq already read (0)")],
        responses={200: JobEventsSerializer, **NOT_FOUND, **AUTH_ERRORS},
    )
    def get(self, request: Request, job_id: int) -> Response:
        job = job_or_404(request, job_id)
        if isinstance(job, Response):
            return job
        events = selectors.job_events(job.pk, max(0, int_parameter(request, "after", 0)))
        finished = job.finished and any(event.get("type") == services.FINISHED_EVENT for event in events)
        return Response(JobEventsSerializer({"events": events, "finished": finished}).data)


class JobCancelView(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="jobs_cancel",
        summary="Cancel a queued or running job (its running queries are stopped)",
        description="202 with the job; a finished job is returned unchanged with 200.",
        request=None,
        responses={200: JobSerializer, 202: JobSerializer, **NOT_FOUND, **AUTH_ERRORS},
    )
    def post(self, request: Request, job_id: int) -> Response:
        job = job_or_404(request, job_id)
        if isinstance(job, Response):
            return job
        if job.finished:
            return Response(JobSerializer(job).data)
        return Response(JobSerializer(services.cancel_job(job)).data, status=status.HTTP_202_ACCEPTED)
