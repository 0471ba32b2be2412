"""REST routes of the web app (mounted under /api/): health."""

from django.urls import URLPattern, URLResolver, path

from backend.apps.web import health_views

urlpatterns: list[URLPattern | URLResolver] = [
    path("health/live/", health_views.LivenessView.as_view(), name="health-live"),
    path("health/ready/", health_views.ReadinessView.as_view(), name="health-ready"),
]
