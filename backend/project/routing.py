"""WebSocket routes. Later issues add the live pipeline stream here."""

from django.urls import URLPattern, URLResolver

websocket_urlpatterns: list[URLPattern | URLResolver] = []
