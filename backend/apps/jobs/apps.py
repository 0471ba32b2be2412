from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "backend.apps.jobs"
    label = "jobs"
    verbose_name = "Jobs"

    def ready(self) -> None:
        from backend.apps.jobs import signals  # noqa: F401  (connects the Celery worker_ready handler)
