from django.apps import AppConfig


class ParadigmsConfig(AppConfig):
    name = "paradigms"
    verbose_name = "Query paradigm library"
