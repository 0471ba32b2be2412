"""GET /metrics: the Prometheus text exposition (no login, like the health endpoints; keep it off the
public proxy). In production it adds up the web server's and the Celery workers' samples (metrics.py)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from backend.apps.web.metrics import exposition


@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    body, content_type = exposition()
    return HttpResponse(body, content_type=content_type)
