"""An aggregate said again with its measure left out, in a later clause that filters on it
(各行业2024年报平均ROE，只看平均超过10%的行业; average ROE by industry - only industries averaging above
10%): the aggregate of the one measure aggregated that way before, so that the comparison reads it.

Only one measure aggregated by the same function may stand before the clause (平均ROE和平均PE，平均超过
10% names no figure: left to refuse), and a clause break must stand between them (平均超过10% said
alone names nothing).
"""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

CLAUSE_BREAKS = {",", "，", ";", "；", "-", "—", "–"}
COMPARED_KINDS = {"cmp", "between"}


def elided_aggregate_measure(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    if token.kind != "agg" or token.value == "count" or kind_at(tokens, i + 1) not in COMPARED_KINDS:
        return None
    if kind_at(tokens, i - 1) in {"metric", "report_figure"}:
        return None  # ROE平均超过10%: the figure is said, right before
    broken = False  # a clause break seen between the earlier aggregate and this one
    measures: set[str] = set()
    source: Token | None = None
    for k in range(i - 1, -1, -1):
        broken = broken or (tokens[k].kind == "and" and tokens[k].text in CLAUSE_BREAKS)
        if tokens[k].kind == "agg" and tokens[k].value == token.value and kind_at(tokens, k + 1) == "metric":
            if not broken:
                return None  # 平均ROE、平均超过…: said in the same clause, no elision
            measures.add(str(tokens[k + 1].value))
            source = source or tokens[k + 1]
    if len(measures) != 1 or source is None:
        return None
    return 1, [token, replace(source, start=token.start)]
