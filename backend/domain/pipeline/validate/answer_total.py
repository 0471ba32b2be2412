"""An amount of money asked of several stocks, with no average asked, is their total.

"上交所主板股票的总市值是多少亿元", "today's turnover of each exchange, in billion yuan": the market
value or turnover of a set of stocks is the sum over its stocks. A shown amount computed with an
average (avg(total_mv) / 1e5) answers what a typical stock weighs, which the question did not ask —
unless it names an average (平均, 日均, average, mean, per stock) or another statistic (median, 中位数).
Judged on the candidate's SQL tree; only averages of a money column are judged (a sum passes, a
single stock's figure or a maximum is not this check's).
"""

from __future__ import annotations

import re
import time

from sqlglot import exp

from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.trace import CheckVerdictValue
from backend.domain.pipeline.validate.answer_scale import asked_unit, shown_amounts
from backend.domain.pipeline.validate.checklist import Attribution, Vocabulary
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of, function_name
from backend.domain.pipeline.validate.outcome import CheckResult, constraint_check

_OTHER_STATISTIC = re.compile(
    r"平均|均值|日均|人均|每只|中位|\b(?:average[ds]?|mean|median|typical|per (?:stock|share|company|day))\b",
    re.IGNORECASE,
)
_AVERAGES = {"avgif", "avgornull", "avgweighted"}
_SUMS = {"sumif", "sumornull", "sumkahan"}


def _aggregated(expression: exp.Expr, column: str, averages: bool) -> bool:
    for node in expression.find_all(exp.AggFunc, exp.Anonymous):
        if averages:
            wanted = isinstance(node, exp.Avg) or function_name(node) in _AVERAGES
        else:
            wanted = isinstance(node, exp.Sum) or function_name(node) in _SUMS
        if wanted and column in columns_of(node):
            return True
    return False


def answer_total_check(question: str, sql: Sql, vocabulary: Vocabulary, lang: Lang) -> CheckResult | None:
    asked = asked_unit(question, vocabulary)
    if asked is None or _OTHER_STATISTIC.search(question):
        return None
    started = time.perf_counter()
    averaged = [f.column for f in shown_amounts(sql, vocabulary) if _aggregated(f.expression, f.column, True)]
    summed = [f.column for f in shown_amounts(sql, vocabulary) if _aggregated(f.expression, f.column, False)]
    verdict: CheckVerdictValue
    if averaged:
        verdict, reason = "fail", f"the shown {averaged[0]} is an average over stocks; no average is asked"
    elif summed:
        verdict, reason = "pass", f"the shown {summed[0]} is a total"
    else:
        return None
    return constraint_check(
        check_id="answer-total",
        kind="answer_total",
        text=says(
            lang,
            f"“{asked[0]}”：一组股票的金额是合计",
            f"“{asked[0]}”: the amount of a set of stocks is their total",
        ),
        criterion=says(lang, "显示的金额用 sum 计算，而非 avg", "the shown amount is a sum, not an avg"),
        sql=None,
        verdict=verdict,
        blames=Attribution.AGGREGATION,
        reason=reason,
        started=started,
    )
