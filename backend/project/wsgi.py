"""WSGI entry point (management and plain HTTP deployments)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.project.settings")

application = get_wsgi_application()
