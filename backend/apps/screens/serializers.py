"""Request and response shapes of the screens API (also the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from backend.apps.screens.models import Screen
from backend.domain.language.limits import MAX_QUESTION_CHARS


class ScreenSerializer(serializers.ModelSerializer[Screen]):
    owner = serializers.CharField(source="owner.username", read_only=True)
    name = serializers.CharField(max_length=200)
    question = serializers.CharField(max_length=MAX_QUESTION_CHARS)
    description = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)
    shared = serializers.BooleanField(required=False, default=False)
    editable = serializers.SerializerMethodField(help_text="The requesting user may change or delete it")

    class Meta:
        model = Screen
        fields = (
            "id",
            "owner",
            "name",
            "question",
            "description",
            "shared",
            "created_at",
            "updated_at",
            "editable",
        )
        read_only_fields = ("id", "owner", "created_at", "updated_at", "editable")

    def get_editable(self, screen: Screen) -> bool:
        user = self.context.get("user")
        return user is not None and (screen.owner_id == user.pk or bool(user.is_staff))


class ScreenUpdateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=200, required=False)
    question = serializers.CharField(max_length=MAX_QUESTION_CHARS, required=False)
    description = serializers.CharField(max_length=5000, required=False, allow_blank=True)
    shared = serializers.BooleanField(required=False)
