"""REST routes of the screens app (mounted under /api/)."""

from django.urls import URLPattern, URLResolver, path

from backend.apps.screens import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("screens/", views.ScreenListCreateView.as_view(), name="screens"),
    path("screens/<int:screen_id>/", views.ScreenDetailView.as_view(), name="screen"),
    path("screens/<int:screen_id>/runs/", views.ScreenRunView.as_view(), name="screen-runs"),
    path("screens/<int:screen_id>/result/", views.ScreenResultView.as_view(), name="screen-result"),
    path(
        "screens/<int:screen_id>/result/csv/", views.ScreenResultCsvView.as_view(), name="screen-result-csv"
    ),
]
