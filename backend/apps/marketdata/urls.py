"""REST routes of the market-data app (mounted under /api/)."""

from django.urls import URLPattern, URLResolver, path

from backend.apps.marketdata import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("market/stats/", views.MarketStatsView.as_view(), name="market-stats"),
    path("sql/", views.SqlConsoleView.as_view(), name="sql-console"),
]
