from django.apps import AppConfig


class ScreeningConfig(AppConfig):
    name = "backend.apps.screening"
    label = "screening"
    verbose_name = "Screening"
