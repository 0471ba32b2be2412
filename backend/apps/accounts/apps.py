from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "backend.apps.accounts"
    label = "accounts"
    verbose_name = "Accounts"
