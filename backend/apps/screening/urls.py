"""Routes of the screening app: the ask API and the single-page app (every other non-API path)."""

from django.urls import URLPattern, URLResolver, path, re_path

from backend.apps.screening import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/ask/", views.AskView.as_view(), name="ask"),
    path("api/validate/", views.ValidateView.as_view(), name="validate"),
    path("", views.spa_index, name="spa-index"),
    # Client-side routes (e.g. /console) load the same page; API, admin and static paths do not.
    re_path(r"^(?!api/|admin/|static/)[\w\-/]+/?$", views.spa_index, name="spa-route"),
]
