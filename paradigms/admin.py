"""Django admin for the paradigm library: list and search, filters (pinned, origin, status), the QST
as an indented tree, SQL editing that is guard-checked and verified on the paradigm's own question
before it is saved, pin/unpin actions, deletion through the service (so matching indexes follow)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from backend.domain.market.errors import MarketError
from paradigms.models import Paradigm

# The admin is loaded at every django.setup(); the library's modules (matching, adaptation, the
# validation pipeline behind curation) are imported on use, so terminal commands that only forward a
# request to the server stay light.


class ParadigmForm(forms.ModelForm):
    sql = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 12, "cols": 110, "style": "font-family: monospace"}),
        help_text="The SQL for this paradigm's own question, literals written out. Saved only after the "
        "read-only guard and the validation pipeline (no correction) verify it on the question.",
    )

    class Meta:
        model = Paradigm
        fields = ("pinned",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from backend.domain.paradigms.adaptation import source_sql
        from paradigms import selectors

        self.fields["sql"].initial = source_sql(selectors.paradigm_template(self.instance))

    def clean_sql(self) -> str:
        sql: str = self.cleaned_data["sql"]
        if "sql" not in self.changed_data:
            return sql
        from paradigms import curation

        try:
            return curation.vet_sql(self.instance, sql)
        except (curation.CurationRefused, MarketError) as refusal:
            raise forms.ValidationError(str(refusal)) from refusal


@admin.register(Paradigm)
class ParadigmAdmin(admin.ModelAdmin):
    form = ParadigmForm
    list_display = (
        "id",
        "question",
        "kind",
        "origin",
        "validation_status",
        "pinned",
        "uses_30d",
        "hits",
        "last_used",
    )
    list_filter = ("kind", "pinned", "origin", "validation_status")
    search_fields = ("question",)
    ordering = ("-created_at", "-pk")
    actions = ("pin", "unpin")
    readonly_fields = (
        "question",
        "qst_tree",
        "sql_template",
        "slots",
        "fixed_dates",
        "resolved_on",
        "origin",
        "validation_status",
        "created_at",
        "node_count",
        "uses_30d",
        "hits",
        "last_used",
    )
    fields = ("question", "pinned", "sql", *readonly_fields[1:])

    def get_queryset(self, request: HttpRequest) -> QuerySet[Paradigm]:
        from paradigms import selectors, services

        return selectors.with_use_figures(super().get_queryset(request), services.library_today())

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # paradigms are learned, loaded from files or imported

    @admin.display(description="QST")
    def qst_tree(self, paradigm: Paradigm) -> str:
        from backend.domain.paradigms.trees import outline

        return format_html("<pre>{}</pre>", "\n".join(outline(paradigm.qst)))

    @admin.display(description="uses (30 days)", ordering="uses_30d")
    def uses_30d(self, paradigm: Paradigm) -> int:
        return int(getattr(paradigm, "uses_30d", 0))

    @admin.display(description="hits", ordering="hits")
    def hits(self, paradigm: Paradigm) -> int:
        return int(getattr(paradigm, "hits", 0))

    @admin.display(description="last used", ordering="last_used")
    def last_used(self, paradigm: Paradigm) -> object:
        return getattr(paradigm, "last_used", None)

    def save_model(self, request: HttpRequest, obj: Paradigm, form: forms.ModelForm, change: bool) -> None:
        from paradigms import curation, services

        services.set_pinned(obj.pk, obj.pinned)
        if "sql" in form.changed_data:
            curation.save_sql(obj.pk, form.cleaned_data["sql"])

    def delete_model(self, request: HttpRequest, obj: Paradigm) -> None:
        from paradigms import services

        services.delete_paradigm(obj.pk)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Paradigm]) -> None:
        from paradigms import services

        for paradigm_id in list(queryset.values_list("pk", flat=True)):
            services.delete_paradigm(paradigm_id)

    @admin.action(description="Pin (never evicted)")
    def pin(self, request: HttpRequest, queryset: QuerySet[Paradigm]) -> None:
        count = queryset.update(pinned=True)
        self.message_user(request, f"{count} paradigm(s) pinned", messages.SUCCESS)

    @admin.action(description="Unpin")
    def unpin(self, request: HttpRequest, queryset: QuerySet[Paradigm]) -> None:
        count = queryset.update(pinned=False)
        self.message_user(request, f"{count} paradigm(s) unpinned", messages.SUCCESS)
