"""OpenAPI shapes of the pipeline's trace events, derived from the event dataclasses.

The serializers are built from `backend/domain/pipeline/trace.py` at import, field by field, so the
schema — and the TypeScript types generated from it — cannot drift from what the pipeline records:
a new event or field appears in the schema by itself, and an annotation this module cannot express
fails at import instead of being published as free JSON.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Literal, get_args, get_origin

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from backend.domain.pipeline.trace import EVENT_TYPES

EventSerializer = type[serializers.Serializer[Any]]


def _is_optional(annotation: object) -> tuple[bool, object]:
    if get_origin(annotation) in (typing.Union, types.UnionType):
        members = [member for member in get_args(annotation) if member is not type(None)]
        if len(members) == 1 and len(get_args(annotation)) == 2:
            return True, members[0]
    return False, annotation


def field_for(annotation: object, help_text: str = "") -> serializers.Field[Any, Any, Any, Any]:
    """The serializer field of one event field's type annotation."""
    nullable, inner = _is_optional(annotation)
    options: dict[str, Any] = {"allow_null": nullable, "help_text": help_text}
    if inner is str:
        return serializers.CharField(allow_blank=True, **options)
    if inner is bool:
        return serializers.BooleanField(**options)
    if inner is int:
        return serializers.IntegerField(**options)
    if inner is float:
        return serializers.FloatField(**options)
    if get_origin(inner) is Literal:
        return serializers.ChoiceField(choices=list(get_args(inner)), **options)
    if get_origin(inner) is tuple and get_args(inner)[1:] == (Ellipsis,):
        return serializers.ListField(child=field_for(get_args(inner)[0]), **options)
    raise TypeError(f"no OpenAPI shape for the event field type {annotation!r}")


def numbered_fields(event_type: str) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
    """What every streamed event carries besides its own fields (trace.RecordedEvent.to_dict)."""
    return {
        "seq": serializers.IntegerField(
            help_text="The event's number in the job, from 1, strictly increasing"
        ),
        "at_ms": serializers.FloatField(help_text="Milliseconds since the run started"),
        "type": serializers.ChoiceField(choices=[event_type]),
    }


def event_serializer(name: str, event_type: str, fields: dict[str, Any], doc: str) -> EventSerializer:
    attrs: dict[str, Any] = {**numbered_fields(event_type), **fields, "__doc__": doc, "__module__": __name__}
    return type(f"{name}Serializer", (serializers.Serializer,), attrs)


def _pipeline_event_serializers() -> dict[str, EventSerializer]:
    built: dict[str, EventSerializer] = {}
    for event_class in EVENT_TYPES:
        hints = typing.get_type_hints(event_class)
        fields = {field.name: field_for(hints[field.name]) for field in dataclasses.fields(event_class)}
        doc = (event_class.__doc__ or "").strip()
        if doc.startswith(f"{event_class.__name__}("):  # the dataclass default docstring says nothing
            doc = f"The pipeline's `{event_class.type}` event."
        name = f"{event_class.__name__.removesuffix('Event')}Event"
        built[event_class.type] = event_serializer(name, event_class.type, fields, doc)
    return built


PIPELINE_EVENT_SERIALIZERS = _pipeline_event_serializers()


def event_union(
    component_name: str, serializers_by_type: dict[str, EventSerializer]
) -> PolymorphicProxySerializer:
    """One of the events, told apart by `type` (an OpenAPI discriminator)."""
    return PolymorphicProxySerializer(
        component_name=component_name,
        serializers=dict(serializers_by_type),
        resource_type_field_name="type",
        many=False,
    )


@extend_schema_field(event_union("PipelineEvent", PIPELINE_EVENT_SERIALIZERS))
class PipelineEventField(serializers.JSONField):
    """One recorded pipeline event, as `ask` returns it in `trace`."""
