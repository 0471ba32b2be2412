"""Session login/logout/me for the browser (CSRF cookie from /api/auth/csrf/), tokens for REST clients."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, login, logout
from django.contrib.auth.models import User
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle
from rest_framework.views import APIView

from backend.apps.accounts import services
from backend.apps.accounts.roles import role_of, signed_in
from backend.apps.accounts.serializers import CredentialsSerializer, MeSerializer, TokenSerializer
from backend.apps.accounts.throttles import CREDENTIAL_THROTTLES
from backend.apps.web.errors import error_body, invalid_request_response
from backend.apps.web.serializers import ErrorSerializer

AUTH_ERRORS = {401: ErrorSerializer, 403: ErrorSerializer, 429: ErrorSerializer}


def me_data(user: Any) -> dict[str, Any]:
    return dict(
        MeSerializer(
            {
                "id": user.pk,
                "username": user.get_username(),
                "email": user.email,
                "role": role_of(user),
                "is_staff": user.is_staff,
            }
        ).data
    )


def _authenticated(request: Request) -> User | Response:
    serializer = CredentialsSerializer(data=request.data)
    if not serializer.is_valid():
        return invalid_request_response(serializer)
    user = authenticate(request._request, **serializer.validated_data)
    if not isinstance(user, User):
        return Response(
            error_body("invalid_credentials", "the user name or password is wrong"),
            status=status.HTTP_400_BAD_REQUEST,
        )
    return user


class CsrfView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        operation_id="auth_csrf",
        summary="Set the CSRF cookie (csrftoken) the browser sends back as X-CSRFToken",
        responses={204: None},
    )
    def get(self, request: Request) -> Response:
        return Response(status=status.HTTP_204_NO_CONTENT)

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        return ensure_csrf_cookie(super().as_view(**initkwargs))


class LoginView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()  # a stale session must not make a login fail its CSRF check
    throttle_classes = (AnonRateThrottle, *CREDENTIAL_THROTTLES)

    @extend_schema(
        operation_id="auth_login",
        summary="Log in with a session cookie (the browser)",
        request=CredentialsSerializer,
        responses={200: MeSerializer, 400: ErrorSerializer, 429: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        user = _authenticated(request)
        if isinstance(user, Response):
            return user
        login(request._request, user)
        return Response(me_data(user))


class LogoutView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        operation_id="auth_logout", summary="End the browser session", request=None, responses={204: None}
    )
    def post(self, request: Request) -> Response:
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="auth_me",
        summary="Who is logged in, and their role",
        responses={200: MeSerializer, **AUTH_ERRORS},
    )
    def get(self, request: Request) -> Response:
        return Response(me_data(request.user))


class TokenView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = (AnonRateThrottle, *CREDENTIAL_THROTTLES)

    @extend_schema(
        operation_id="auth_token",
        summary="A REST token for these credentials (the same token until revoked)",
        request=CredentialsSerializer,
        responses={200: TokenSerializer, 400: ErrorSerializer, 429: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        user = _authenticated(request)
        if isinstance(user, Response):
            return user
        return Response(TokenSerializer({"token": services.issue_token(user), "user": me_data(user)}).data)


class TokenRevokeView(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="auth_token_revoke",
        summary="Revoke my REST token",
        request=None,
        responses={204: None, **AUTH_ERRORS},
    )
    def post(self, request: Request) -> Response:
        services.revoke_token(signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
