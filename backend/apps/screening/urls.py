"""Routes of the screening app (the single-page app is served from here)."""

from django.urls import URLPattern, URLResolver

urlpatterns: list[URLPattern | URLResolver] = []
