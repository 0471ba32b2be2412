"""An amount of money asked of several stocks, with no average asked, is their total.

"上交所主板股票的总市值是多少亿元", "today's turnover of each exchange, in billion yuan": the market
value or turnover of a set of stocks is the sum over its stocks. A shown amount computed with an
average (avg(total_mv) / 1e5) answers what a typical stock weighs, which the question did not ask —
unless it names an average (平均, 日均, average, mean, per stock) or another statistic (median, 中位数).
Judged on the candidate's SQL tree; only averages of a money column are judged (a sum passes, a
single stock's figure or a maximum is not this check's). A total said of a named set of stocks (the
total market cap of the CSI 300, 银行业总市值合计) with no word for a list (which, each, 哪些, 各, 个股)
is one figure: an answer showing the amount of each stock, not aggregated at all, fails.
"""

from __future__ import annotations

import re
import time

from sqlglot import exp

from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.trace import CheckVerdictValue
from backend.domain.pipeline.validate.answer_scale import asked_unit, shown_amounts
from backend.domain.pipeline.validate.checklist import Attribution, Vocabulary
from backend.domain.pipeline.validate.checklist.question import read_question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of, function_name
from backend.domain.pipeline.validate.checklist.vocabulary import Category
from backend.domain.pipeline.validate.outcome import CheckResult, constraint_check

_OTHER_STATISTIC = re.compile(
    r"平均|均值|日均|人均|每只|中位|\b(?:average[ds]?|mean|median|typical|per (?:stock|share|company|day))\b",
    re.IGNORECASE,
)
# "total" said of the amount (total market cap, 合计, 总共): with a set named, one figure for the set
_TOTAL = re.compile(r"合计|总计|总和|总共|一共|加起来|\b(?:total|combined|aggregate|sum of)\b", re.IGNORECASE)
# a list of stocks asked: each stock's amount may be shown
_LIST = re.compile(
    r"哪些|哪几|列出|各|每只|每家|个股|分别|排名|前\s*\d|"
    r"\b(?:which|list|show|each|every|per|by|respectively|top|ranked)\b|\b(?:members|constituents|stocks)'",
    re.IGNORECASE,
)
# a threshold on the amount (a total market cap above 100 billion): stocks are screened by their own
_COMPARED = re.compile(
    r"超过|高于|低于|大于|小于|不足|以上|以下|\b(?:above|below|over|under|exceed\w*|more than|less than)\b",
    re.IGNORECASE,
)
_SETS = (Category.INDEX, Category.INDUSTRY, Category.INDUSTRY_GROUP, Category.EXCHANGE, Category.BOARD)
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


def _total_of_a_set(question: str, vocabulary: Vocabulary) -> bool:
    """A total said of a set of stocks the question names, with no list of stocks asked."""
    if _TOTAL.search(question) is None or _LIST.search(question) or _COMPARED.search(question):
        return False
    return bool(read_question(question, vocabulary).hits_of(*_SETS))


def _aggregates(sql: Sql) -> bool:
    """Whether the answer's own SELECT aggregates (or groups) at all."""
    tree = sql.tree
    if not isinstance(tree, exp.Select):
        return True  # several queries: not read
    own = [node for node in tree.find_all(exp.AggFunc) if node.find_ancestor(exp.Select) is tree]
    return bool(own) or tree.args.get("group") is not None


def answer_total_check(question: str, sql: Sql, vocabulary: Vocabulary, lang: Lang) -> CheckResult | None:
    asked = asked_unit(question, vocabulary)
    if asked is None or _OTHER_STATISTIC.search(question):
        return None
    started = time.perf_counter()
    averaged = [f.column for f in shown_amounts(sql, vocabulary) if _aggregated(f.expression, f.column, True)]
    summed = [f.column for f in shown_amounts(sql, vocabulary) if _aggregated(f.expression, f.column, False)]
    verdict: CheckVerdictValue
    shown = shown_amounts(sql, vocabulary)
    if averaged:
        verdict, reason = "fail", f"the shown {averaged[0]} is an average over stocks; no average is asked"
    elif shown and not _aggregates(sql) and _total_of_a_set(question, vocabulary):
        verdict = "fail"
        reason = f"the answer shows each stock's {shown[0].column}; the question asks one total for the set"
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
