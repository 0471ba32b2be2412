"""The screens API: save a question under a name, list/search, change, delete, re-run, runs, results.

Another user's private screen is a 404; a shared screen may be read and run by everyone but changed
only by its owner (or an admin).
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.apps.accounts.roles import signed_in
from backend.apps.jobs.models import Job
from backend.apps.jobs.results import csv_response
from backend.apps.jobs.serializers import JobResultSerializer, JobSerializer
from backend.apps.jobs.views import AUTH_ERRORS, NOT_FOUND, PAGE_PARAMETERS, result_response
from backend.apps.screening.answers import InvalidQuestion
from backend.apps.screens import selectors, services
from backend.apps.screens.models import Screen
from backend.apps.screens.serializers import ScreenSerializer, ScreenUpdateSerializer
from backend.apps.web.errors import error_body, invalid_request_response
from backend.apps.web.serializers import ErrorSerializer


def _screen_or_404(request: Request, screen_id: int) -> Screen | Response:
    screen = selectors.visible_screens(request.user).filter(pk=screen_id).first()
    if screen is None:
        return Response(error_body("not_found", f"no screen {screen_id}"), status=status.HTTP_404_NOT_FOUND)
    return screen


def _refused(error: Exception) -> Response:
    code = "screen_name_taken" if isinstance(error, services.ScreenNameTaken) else "invalid_request"
    http_status = status.HTTP_409_CONFLICT if code == "screen_name_taken" else status.HTTP_400_BAD_REQUEST
    return Response(error_body(code, str(error)), status=http_status)


def _not_editable() -> Response:
    return Response(
        error_body("permission_denied", "only the screen's owner or an admin may change it"),
        status=status.HTTP_403_FORBIDDEN,
    )


class ScreenListCreateView(generics.GenericAPIView[Screen]):
    permission_classes = (IsAuthenticated,)
    serializer_class = ScreenSerializer

    def get_queryset(self) -> QuerySet[Screen]:
        return selectors.visible_screens(
            self.request.user, self.request.query_params.get("search", "").strip()
        )

    @extend_schema(
        operation_id="screens_list",
        summary="My screens and the shared ones (search by name, question or description)",
        parameters=[OpenApiParameter("search", OpenApiTypes.STR, description="text to look for")],
        responses={200: ScreenSerializer(many=True), **AUTH_ERRORS},
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(
            ScreenSerializer(page, many=True, context={"user": request.user}).data
        )

    @extend_schema(
        operation_id="screens_create",
        summary="Save a question as a named screen",
        request=ScreenSerializer,
        responses={201: ScreenSerializer, 400: ErrorSerializer, 409: ErrorSerializer, **AUTH_ERRORS},
    )
    def post(self, request: Request) -> Response:
        serializer = ScreenSerializer(data=request.data)
        if not serializer.is_valid():
            return invalid_request_response(serializer)
        try:
            screen = services.create_screen(owner=signed_in(request), **serializer.validated_data)
        except (InvalidQuestion, services.ScreenNameTaken) as error:
            return _refused(error)
        return Response(
            ScreenSerializer(screen, context={"user": request.user}).data, status=status.HTTP_201_CREATED
        )


class ScreenDetailView(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="screens_retrieve", responses={200: ScreenSerializer, **NOT_FOUND, **AUTH_ERRORS}
    )
    def get(self, request: Request, screen_id: int) -> Response:
        screen = _screen_or_404(request, screen_id)
        if isinstance(screen, Response):
            return screen
        return Response(ScreenSerializer(screen, context={"user": request.user}).data)

    @extend_schema(
        operation_id="screens_update",
        summary="Change a screen's name, question, description or sharing (owner or admin)",
        request=ScreenUpdateSerializer,
        responses={
            200: ScreenSerializer,
            400: ErrorSerializer,
            409: ErrorSerializer,
            **NOT_FOUND,
            **AUTH_ERRORS,
        },
    )
    def patch(self, request: Request, screen_id: int) -> Response:
        screen = _screen_or_404(request, screen_id)
        if isinstance(screen, Response):
            return screen
        if not selectors.can_edit(request.user, screen):
            return _not_editable()
        serializer = ScreenUpdateSerializer(data=request.data)
        if not serializer.is_valid():
            return invalid_request_response(serializer)
        try:
            screen = services.update_screen(screen, dict(serializer.validated_data))
        except (InvalidQuestion, services.ScreenNameTaken) as error:
            return _refused(error)
        return Response(ScreenSerializer(screen, context={"user": request.user}).data)

    @extend_schema(
        operation_id="screens_delete",
        summary="Delete a screen (owner or admin); its runs stay in their owners' history",
        responses={204: None, **NOT_FOUND, **AUTH_ERRORS},
    )
    def delete(self, request: Request, screen_id: int) -> Response:
        screen = _screen_or_404(request, screen_id)
        if isinstance(screen, Response):
            return screen
        if not selectors.can_edit(request.user, screen):
            return _not_editable()
        services.delete_screen(screen)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ScreenRunView(generics.GenericAPIView[Job]):
    permission_classes = (IsAuthenticated,)
    serializer_class = JobSerializer

    @extend_schema(
        operation_id="screens_runs",
        summary="The screen's run history (my runs; an admin sees everyone's), newest first",
        responses={200: JobSerializer(many=True), **NOT_FOUND, **AUTH_ERRORS},
    )
    def get(self, request: Request, screen_id: int) -> Response:
        screen = _screen_or_404(request, screen_id)
        if isinstance(screen, Response):
            return screen
        page = self.paginate_queryset(selectors.screen_runs(request.user, screen))
        return self.get_paginated_response(JobSerializer(page, many=True).data)

    @extend_schema(
        operation_id="screens_run",
        summary="Re-run the screen on the latest data: creates a job (202)",
        request=None,
        responses={202: JobSerializer, 400: ErrorSerializer, **NOT_FOUND, **AUTH_ERRORS},
    )
    def post(self, request: Request, screen_id: int) -> Response:
        screen = _screen_or_404(request, screen_id)
        if isinstance(screen, Response):
            return screen
        try:
            job = services.run_screen(screen, signed_in(request))
        except InvalidQuestion as error:
            return _refused(error)
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


def _latest_or_404(request: Request, screen_id: int) -> Job | Response:
    screen = _screen_or_404(request, screen_id)
    if isinstance(screen, Response):
        return screen
    job = selectors.latest_result(request.user, screen)
    if job is None:
        return Response(
            error_body("no_result", "this screen has no finished run of yours yet: run it first"),
            status=status.HTTP_404_NOT_FOUND,
        )
    return job


class ScreenResultView(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="screens_result",
        summary="The screen's latest result (my newest finished run), one page of rows",
        parameters=PAGE_PARAMETERS,
        responses={200: JobResultSerializer, **NOT_FOUND, **AUTH_ERRORS},
    )
    def get(self, request: Request, screen_id: int) -> Response:
        job = _latest_or_404(request, screen_id)
        return job if isinstance(job, Response) else result_response(request, job)


class ScreenResultCsvView(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="screens_result_csv",
        summary="The screen's latest result as CSV",
        responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR), **NOT_FOUND, **AUTH_ERRORS},
    )
    def get(self, request: Request, screen_id: int) -> HttpResponseBase:
        job = _latest_or_404(request, screen_id)
        if isinstance(job, Response):
            return job
        return csv_response(job, f"veriscreen-screen-{screen_id}-job-{job.pk}.csv")
