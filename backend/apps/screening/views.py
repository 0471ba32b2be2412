"""The single-page app at / and the ask API."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe

FRONTEND_NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>VeriScreen — frontend not built</title></head>
<body style="font-family: sans-serif; margin: 3rem">
<h1>VeriScreen: frontend not built</h1>
<p>The React app has not been built yet (<code>frontend/dist/index.html</code> is missing).</p>
<p>Run <code>make run</code> (or <code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>).</p>
<p>The REST API works meanwhile: <a href="/api/docs/">/api/docs/</a>.</p>
</body></html>
"""


@require_safe
@ensure_csrf_cookie  # the app reads the token from the cookie for its POSTs
def spa_index(request: HttpRequest) -> HttpResponse:
    index = settings.FRONTEND_DIST / "index.html"
    try:
        html = index.read_text(encoding="utf-8")
    except FileNotFoundError:
        return HttpResponse(FRONTEND_NOT_BUILT, status=503)
    response = HttpResponse(html)
    response["Cache-Control"] = "no-cache"  # hashed assets are cached; the entry page is not
    return response
