from django.apps import AppConfig


class ScreensConfig(AppConfig):
    name = "backend.apps.screens"
    label = "screens"
    verbose_name = "Screens"
