"""WebSocket routes: the live event stream of a job."""

from django.urls import URLPattern, URLResolver

from backend.apps.jobs.routing import websocket_urlpatterns as job_routes

websocket_urlpatterns: list[URLPattern | URLResolver] = [*job_routes]
