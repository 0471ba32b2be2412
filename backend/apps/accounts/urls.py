"""REST routes of the accounts app (mounted under /api/)."""

from django.urls import URLPattern, URLResolver, path

from backend.apps.accounts import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("auth/csrf/", views.CsrfView.as_view(), name="auth-csrf"),
    path("auth/login/", views.LoginView.as_view(), name="auth-login"),
    path("auth/logout/", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/me/", views.MeView.as_view(), name="auth-me"),
    path("auth/token/", views.TokenView.as_view(), name="auth-token"),
    path("auth/token/revoke/", views.TokenRevokeView.as_view(), name="auth-token-revoke"),
]
