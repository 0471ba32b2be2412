from django.apps import AppConfig
from django.core.checks import Tags, register


class WebConfig(AppConfig):
    name = "backend.apps.web"
    label = "web"
    verbose_name = "Web plumbing"

    def ready(self) -> None:
        from backend.apps.web.checks import database_reachable

        register(database_reachable, Tags.database)
