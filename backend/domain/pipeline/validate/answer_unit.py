"""An amount asked in a money unit (是多少亿元, in billion yuan) must be computed from a money column.

A question that asks for yuan cannot be answered by a percentage or a ratio (turnover read as the
turnover rate, summed, is no turnover in yuan). Checked on the candidate's SQL tree: it passes when
the SQL reads a money column, fails when it reads none but a percentage column, and cannot decide
otherwise (an amount computed from prices and volumes).
"""

from __future__ import annotations

import re
import time
from functools import lru_cache

from sqlglot import exp

from backend.domain.language.semantic import default_model
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.trace import CheckVerdictValue
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.checklist.sqltree import Sql
from backend.domain.pipeline.validate.outcome import CheckResult, constraint_check

_MONEY_ASKED = re.compile(
    r"(?:多少|几)\s*(?:万亿|千亿|百亿|亿|千万|百万|万)?\s*元"
    r"|\bin\s+(?:(?:trillion|billion|million|thousand)s?\s+)?(?:yuan|cny|rmb)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _columns() -> tuple[frozenset[str], frozenset[str]]:
    metrics = [metric for metric in default_model().metrics.values() if not metric.expression]
    money = frozenset(metric.column for metric in metrics if metric.unit_kind == "money")
    percent = frozenset(metric.column for metric in metrics if metric.percent)
    return money, percent


def money_unit_check(question: str, sql: Sql, lang: Lang) -> CheckResult | None:
    match = _MONEY_ASKED.search(question)
    if match is None:
        return None
    started = time.perf_counter()
    money, percent = _columns()
    read = {column.name for column in sql.tree.find_all(exp.Column)}
    verdict: CheckVerdictValue
    if read & money:
        verdict, reason = "pass", f"the SQL reads {', '.join(sorted(read & money))}"
    elif read & percent:
        verdict = "fail"
        reason = f"the SQL reads no money column, only {', '.join(sorted(read & percent))}"
    else:
        verdict, reason = "undecidable", "the SQL reads no stored money column; how it gets yuan is not read"
    return constraint_check(
        check_id="answer-unit",
        kind="answer_unit",
        text=says(
            lang, f"“{match.group()}”：答案是金额", f"“{match.group()}”: the answer is an amount of money"
        ),
        sql=None,
        criterion=says(lang, "SQL 读取金额列", "the SQL reads a money column"),
        verdict=verdict,
        blames=Attribution.UNIT,
        reason=reason,
        started=started,
    )
