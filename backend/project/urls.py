"""URL routing: the React app at /, the REST API under /api/, the OpenAPI schema and docs, /metrics.

Errors outside the views (unknown paths, middleware failures) answer JSON under /api/: see backend.apps.web.
"""

from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from backend.apps.web.metrics_views import metrics_view

urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/", admin.site.urls),
    path("metrics", metrics_view, name="metrics"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/", include("backend.apps.marketdata.urls")),
    path("api/", include("backend.apps.accounts.urls")),
    path("api/", include("backend.apps.jobs.urls")),
    path("api/", include("backend.apps.screens.urls")),
    path("api/", include("backend.apps.semantic.urls")),
    path("api/", include("backend.apps.web.urls")),
    path("api/", include("paradigms.urls")),
    path("", include("backend.apps.screening.urls")),
]

handler400 = "backend.apps.web.views.bad_request"
handler403 = "backend.apps.web.views.permission_denied"
handler404 = "backend.apps.web.views.page_not_found"
handler500 = "backend.apps.web.views.server_error"
