"""Request and response shapes of the accounts API (also the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from backend.apps.accounts.roles import ROLES


class CredentialsSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False, style={"input_type": "password"})


class MeSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField(allow_blank=True)
    role = serializers.ChoiceField(choices=ROLES, help_text="admin = staff: paradigm curation, every job")
    is_staff = serializers.BooleanField()


class TokenSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`")
    user = MeSerializer()
