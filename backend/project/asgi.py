"""ASGI entry point: HTTP through Django, WebSocket through Channels."""

import os

from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import WebsocketDenier
from django.core.asgi import get_asgi_application
from django.urls import re_path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.project.settings")

django_asgi_app = get_asgi_application()

from backend.project.routing import websocket_urlpatterns  # noqa: E402  (needs the app registry)

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Last, a path no route serves: the handshake is refused (HTTP 403 from the server) instead of
        # the router raising "No route found" into the server log and answering 500.
        "websocket": URLRouter([*websocket_urlpatterns, re_path(r"", WebsocketDenier.as_asgi())]),
    }
)
