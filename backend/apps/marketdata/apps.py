from django.apps import AppConfig


class MarketDataConfig(AppConfig):
    name = "backend.apps.marketdata"
    label = "marketdata"
    verbose_name = "Market data"
