from django.apps import AppConfig


class EquivalenceConfig(AppConfig):
    name = "backend.apps.equivalence"
    label = "equivalence"
    verbose_name = "SQL equivalence (bounded, SMT)"
