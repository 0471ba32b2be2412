from django.apps import AppConfig


class SemanticConfig(AppConfig):
    name = "backend.apps.semantic"
    label = "semantic"
    verbose_name = "Semantic model"
