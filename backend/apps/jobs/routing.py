"""WebSocket routes of the jobs app."""

from django.urls import URLPattern, URLResolver, path

from backend.apps.jobs.consumers import JobConsumer

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    path("ws/jobs/<int:job_id>/", JobConsumer.as_asgi()),
]
