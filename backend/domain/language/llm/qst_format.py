"""The QST format of `backend.domain.language.qst`, told to the QST-parser model.

The vocabulary is read from the QST module and the semantic model, so the prompt cannot drift from
what `validate_qst` accepts; one worked example (checked by the tests) shows the nesting.
"""

from __future__ import annotations

import json
from functools import cache

from backend.domain.language.ir import TIME_LABELS
from backend.domain.language.qst import AGGREGATES, OPERATORS, SCOPE_KINDS, TECHNICAL_KINDS
from backend.domain.language.semantic import default_model

EXAMPLE_QUESTION = "2025年9月8日收盘价最高的上交所股票"
EXAMPLE_QST: dict[str, object] = {
    "label": "select",
    "children": [
        {"label": "return", "children": [{"label": "entity:stock", "children": []}]},
        {"label": "time:date", "children": [{"label": "value:date", "children": [], "value": "2025-09-08"}]},
        {
            "label": "where",
            "children": [
                {
                    "label": "scope:exchange",
                    "children": [{"label": "value:entity:exchange", "children": [], "value": "SSE"}],
                }
            ],
        },
        {"label": "order:desc", "children": [{"label": "attribute:close", "children": []}]},
        {"label": "limit", "children": [{"label": "value:number", "children": [], "value": 1}]},
    ],
}


@cache
def describe_qst_format() -> str:
    model = default_model()
    return "\n".join(
        [
            'Root: {"label": "select", "children": [...]} with these children, each at most once:',
            '  "return": what is returned — "entity:stock" when stocks are listed, "aggregate:<fn>" (with an',
            '    "attribute:<metric>" child) for statistics, "attribute:<metric>" for extra columns;',
            '  "time:<scope>": the time scope of the question;',
            '  "where": the conditions;  "group": one "dimension:<name>" child;',
            '  "order:asc" / "order:desc": an "attribute:<metric>" or "aggregate:<fn>" child;',
            '  "limit" and "limit:per_group" (top-k within each group): one "value:number" child.',
            'Conditions: "condition:compare" with "attribute:<metric>", "operator:<op>", one or two',
            '  "value:number" (number in the column\'s stored unit, e.g. 1000亿 market cap = 10000000 for',
            '  total_mv in 万元; put the original words in a "text" field), optional "time:<scope>" and',
            '  "window:<fn>"; "technical:<kind>" with "value:number" (window length, then optional factor);',
            '  "fundamental:growth_streak" with "attribute:<metric>", "direction:up|down",',
            '  "period:year|quarter" and "value:number" (how many in a row); "scope:<kind>" with',
            '  "value:entity:<kind>" nodes (list_date / listed_years: "operator:<op>" and "value:date" or',
            '  "value:number"); "bool:and", "bool:or", "bool:not" around conditions.',
            'Time scopes: "time:<scope>" with "value:date" (ISO), "value:number" (N for recent_*),',
            '  "value:year", "value:month" or "value:quarter" children as the scope needs.',
            'Literals always go in the "value" field of value nodes, never into labels.',
            f"metrics: {', '.join(model.metrics)}",
            f"dimensions: {', '.join(model.dimensions)}",
            f"operators: {', '.join(OPERATORS)}; aggregates: {', '.join(AGGREGATES)}",
            f"technical kinds: {', '.join(TECHNICAL_KINDS)}",
            f"scope kinds: {', '.join(SCOPE_KINDS)}",
            f"time scopes: {', '.join(TIME_LABELS)}",
            f"Example — {EXAMPLE_QUESTION}:",
            json.dumps(EXAMPLE_QST, ensure_ascii=False),
        ]
    )
