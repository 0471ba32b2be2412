"""ASGI entry point: HTTP through Django, WebSocket through Channels."""

import os

from channels.routing import ProtocolTypeRouter, URLRouter
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.project.settings")

django_asgi_app = get_asgi_application()

from backend.project.routing import websocket_urlpatterns  # noqa: E402  (needs the app registry)

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": URLRouter(websocket_urlpatterns),
    }
)
