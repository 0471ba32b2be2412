"""A saved screen: a named question, private to its owner unless shared."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Screen(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="screens")
    name = models.CharField(max_length=200)
    question = models.TextField()
    description = models.TextField(blank=True)
    shared = models.BooleanField(default=False, help_text="visible to (and runnable by) every user")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-updated_at", "-id")
        constraints = (
            models.UniqueConstraint(fields=("owner", "name"), name="screen_name_unique_per_owner"),
        )

    def __str__(self) -> str:
        return self.name
