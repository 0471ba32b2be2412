"""Celery app. Tasks are thin wrappers around services; configuration comes from Django settings."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.project.settings")

app = Celery("veriscreen")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
