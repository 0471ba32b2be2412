"""A figure asked in a scaled money unit (是多少亿元, in billion yuan) is shown in that unit.

Each money column is stored in a unit of its own (total_mv in 万元, amount in 千元, income in 元: the
semantic model's stored unit). A shown figure read from one money column is that column times a
factor (sum(total_mv) / 1e5, avg(amount) / 100000); for the figure to be in the asked unit the factor
must be the stored unit over the asked one. Judged on the candidate's SQL tree, figure by figure in
the outer SELECT: a factor off by a power of ten is a unit error (total_mv divided as if it were in
yuan, 亿 written for billions); no factor at all shows the stored unit, which the question did not
ask, so it cannot pass either; any other factor, or a figure not linear in one money column, is not
judged.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from sqlglot import exp

from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.trace import CheckVerdictValue
from backend.domain.pipeline.validate.checklist import Attribution, Vocabulary
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    close,
    columns_of,
    is_power_of_ten,
    linear_factor,
)
from backend.domain.pipeline.validate.outcome import CheckResult, constraint_check

_SCALE_ZH = "万亿|千亿|百亿|亿|千万|百万|万"
# 多少亿元, 多少亿？ (not 多少万手, 几千只): a scale word alone must end the clause
# …（亿元）, 单位：亿元, 以亿元为单位, in 亿 (100 million CNY): the unit named beside the figures
_ASKED = re.compile(
    rf"(?:多少|几)\s*(?:(?P<zh>{_SCALE_ZH})\s*(?:元|(?=[？?，,。.;；\s]|$))|元)"
    rf"|[（(]\s*(?:单位[:：]?\s*)?(?P<bracket>{_SCALE_ZH})\s*元\s*[)）]"
    rf"|(?:单位[为是:：]?\s*|以)(?P<unit>{_SCALE_ZH})元"
    rf"|\bin\s+(?P<written>{_SCALE_ZH})(?:\s*元)?"
    r"|\bin\s+(?:(?P<times>10|100|ten|a hundred|hundreds of|tens of)\s+)?"
    r"(?:(?P<en>trillion|billion|million|thousand|bn|mn)s?\s+(?:of\s+)?)?(?:yuan|cny|rmb)\b",
    re.IGNORECASE,
)
# in 100 million yuan, in tens of thousands of yuan: a count of the scale word (亿, 万 said in English)
_TIMES = {"10": 10.0, "ten": 10.0, "tens of": 10.0, "100": 100.0, "a hundred": 100.0, "hundreds of": 100.0}


@dataclass(frozen=True)
class ShownAmount:
    """A figure of the outer SELECT read from exactly one money column."""

    column: str
    expression: exp.Expr  # with aliases and subquery outputs resolved
    factor: float | None  # shown = factor × stored value; None when not linear in the column


def asked_unit(question: str, vocabulary: Vocabulary) -> tuple[str, float] | None:
    """The money unit the question asks its figure in, as written, and how many yuan it stands for."""
    match = _ASKED.search(question)
    if match is None:
        return None
    scale = next(
        (match.group(name) for name in ("zh", "bracket", "unit", "written", "en") if match.group(name)), None
    )
    if scale is None:
        return match.group(), 1.0
    factor = vocabulary.scale_units.get(scale.lower())
    times = _TIMES[match.group("times").lower()] if match.group("times") else 1.0
    return None if factor is None else (match.group(), factor * times)


def shown_amounts(sql: Sql, vocabulary: Vocabulary) -> list[ShownAmount]:
    tree = sql.tree
    if not isinstance(tree, exp.Select):
        return []
    money = money_columns(vocabulary)
    figures = []
    for projection in tree.expressions:
        shown = projection.this if isinstance(projection, exp.Alias) else projection
        resolved = sql.resolve(shown, tree)
        read = columns_of(resolved) & set(money)
        if len(read) == 1:
            column = next(iter(read))
            figures.append(ShownAmount(column, resolved, linear_factor(resolved, column, amounts=True)))
    return figures


def money_columns(vocabulary: Vocabulary) -> dict[str, float]:
    """Stored money columns and how many yuan one stored unit is."""
    return {
        next(iter(metric.columns)): metric.stored_factor
        for metric in vocabulary.metrics.values()
        if metric.unit_kind == "money" and len(metric.columns) == 1
    }


def answer_scale_check(question: str, sql: Sql, vocabulary: Vocabulary, lang: Lang) -> CheckResult | None:
    asked = asked_unit(question, vocabulary)
    if asked is None:
        return None
    started = time.perf_counter()
    words, yuan = asked
    money = money_columns(vocabulary)
    scaled = [(f.column, f.factor, money[f.column] / yuan) for f in shown_amounts(sql, vocabulary)]
    figures = [(column, factor, wanted) for column, factor, wanted in scaled if factor is not None]
    if not figures:
        return None
    wrong = [(column, factor, wanted) for column, factor, wanted in figures if not close(factor, wanted)]
    off = [(column, factor, wanted) for column, factor, wanted in wrong if is_power_of_ten(factor / wanted)]
    verdict: CheckVerdictValue
    if not wrong:
        verdict, reason = "pass", f"{', '.join(sorted({f[0] for f in figures}))} shown as asked"
    elif off and any(factor != 1 for _, factor, _ in off):
        column, factor, wanted = next(f for f in off if f[1] != 1)
        verdict = "fail"
        reason = (
            f"{column} (stored in units of {money[column]:g} yuan) is multiplied by {factor:g}; "
            f"“{words}” takes {wanted:g}"
        )
    elif off:
        verdict = "undecidable"
        reason = f"{', '.join(sorted({f[0] for f in off}))} shown in its stored unit, not converted"
    else:
        verdict, reason = "undecidable", "a shown amount is scaled by a factor that is no unit's"
    return constraint_check(
        check_id="answer-scale",
        kind="answer_scale",
        text=says(lang, f"“{words}”：金额以此单位显示", f"“{words}”: the amount is shown in this unit"),
        criterion=says(
            lang, "显示金额 = 存储值 × 存储单位 / 所问单位", "shown = stored × stored unit / asked unit"
        ),
        sql=None,
        verdict=verdict,
        blames=Attribution.UNIT,
        reason=reason,
        started=started,
    )
