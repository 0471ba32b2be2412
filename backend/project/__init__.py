"""Django project: settings, URL routing, ASGI/WSGI entry points and the Celery app."""

from backend.project.celery import app as celery_app

__all__ = ["celery_app"]
