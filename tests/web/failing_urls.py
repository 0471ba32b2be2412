"""The site's URLs and error handlers, plus views that fail on purpose (tests of error bodies only)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.domain.market.errors import StoreBusy
from backend.project.urls import handler400, handler403, handler404, handler500
from backend.project.urls import urlpatterns as site_urlpatterns

SECRET_IN_EXCEPTION = "secret-text-of-the-exception"


class FailingApiView(APIView):
    def post(self, request: Request) -> Response:
        _ = request.data  # read the body, as a real endpoint does
        raise RuntimeError(SECRET_IN_EXCEPTION)


class BusyStoreView(APIView):
    """A market error no view code catches: the exception handler still answers it."""

    def get(self, request: Request) -> Response:
        raise StoreBusy("too many queries are waiting; try again shortly", retry_after=3)


def failing_django_view(request: HttpRequest) -> HttpResponse:
    raise RuntimeError(SECRET_IN_EXCEPTION)


def forbidden_django_view(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied(SECRET_IN_EXCEPTION)


urlpatterns: list[URLPattern | URLResolver] = [
    path("api/failing/drf/", FailingApiView.as_view()),
    path("api/failing/busy/", BusyStoreView.as_view()),
    path("api/failing/django/", failing_django_view),
    path("api/failing/forbidden/", forbidden_django_view),
    path("failing/page/", failing_django_view),
    *site_urlpatterns,
]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
