"""Reads of the semantic model (backend/domain/language/semantic.py) and the concept catalogue."""

from __future__ import annotations

from typing import Any

from backend.domain.language.catalogue import default_catalogue
from backend.domain.language.semantic import SemanticModel, default_model


def semantic_overview(model: SemanticModel | None = None) -> dict[str, Any]:
    semantic = model or default_model()
    return {
        "version": semantic.version,
        "metrics": [
            {
                "key": metric.key,
                "meaning": metric.meaning,
                "table": metric.table,
                "column": metric.column,
                "kind": metric.kind,
                "stored_unit": metric.stored_unit.name,
                "input_unit": metric.input_unit.name,
                "percent": metric.percent,
                "words": {"zh": list(metric.zh), "en": list(metric.en)},
            }
            for metric in semantic.metrics.values()
        ],
        "dimensions": [
            {
                "key": dimension.key,
                "column": dimension.column,
                "meaning": dimension.meaning,
                "words": list(dimension.words),
            }
            for dimension in semantic.dimensions.values()
        ],
        "units": {
            "scale": semantic.scale_units,
            "shares": semantic.share_units,
            "money_words": list(semantic.money_words),
            "percent_words": list(semantic.percent_words),
            "times_words": list(semantic.times_words),
        },
        "exchanges": {key: list(words) for key, words in semantic.exchanges.items()},
        "boards": {key: list(words) for key, words in semantic.boards.items()},
        "industries": {key: list(words) for key, words in semantic.industry_synonyms.items()},
        "industry_groups": [
            {"key": group.key, "words": list(group.words), "industries": list(group.industries)}
            for group in semantic.industry_groups.values()
        ],
        "indexes": {key: list(words) for key, words in semantic.index_synonyms.items()},
        "conventions": semantic.conventions,
    }


def concepts(family: str = "", status: str = "") -> list[dict[str, Any]]:
    return [
        concept
        for concept in default_catalogue().as_dicts()
        if (not family or concept["family"] == family) and (not status or concept["status"] == status)
    ]
