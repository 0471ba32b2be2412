"""ASGI entry point: HTTP through Django, WebSocket through Channels."""

import os

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator, WebsocketDenier
from django.core.asgi import get_asgi_application
from django.urls import re_path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.project.settings")

django_asgi_app = get_asgi_application()

from backend.apps.accounts.websocket import TokenAuthMiddleware  # noqa: E402  (needs the app registry)
from backend.project.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Last, a path no route serves: the handshake is refused (HTTP 403 from the server) instead of
        # the router raising "No route found" into the server log and answering 500.
        # The browser's session cookie (or a REST client's `Authorization: Token …` header) names the
        # user; a cross-site page cannot open a socket with the user's cookie (Origin must be allowed).
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(
                TokenAuthMiddleware(
                    URLRouter([*websocket_urlpatterns, re_path(r"", WebsocketDenier.as_asgi())])
                )
            )
        ),
    }
)
