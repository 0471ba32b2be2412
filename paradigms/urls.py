"""REST routes of the paradigm curation API (mounted under /api/; staff users only)."""

from django.urls import URLPattern, URLResolver, path

from paradigms import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("paradigms/", views.ParadigmListView.as_view(), name="paradigms-list"),
    path("paradigms/stats/", views.ParadigmStatsView.as_view(), name="paradigms-stats"),
    path("paradigms/export/", views.ParadigmExportView.as_view(), name="paradigms-export"),
    path("paradigms/import/", views.ParadigmImportView.as_view(), name="paradigms-import"),
    path("paradigms/<int:paradigm_id>/", views.ParadigmDetailView.as_view(), name="paradigms-detail"),
    path("paradigms/<int:paradigm_id>/pin/", views.ParadigmPinView.as_view(), name="paradigms-pin"),
]
