"""Counts: 多少只 / 几家 / 数量 / 家数 / how many / number of → count(), countIf, uniq… in the answer.

Rows listed where a number was asked answer a different question. A sum over a condition
(sum(pct_chg > 0), sum(if(…, 1, 0))) or an array length may be a count written by hand: undecidable.
Counted among the top k ("市值前100的公司里…有几家", "of the 50 largest …, how many"), the count must
read the rows of a subquery, CTE or IN filter cut at k — a LIMIT in its own SELECT comes after it.
Several things counted together ("上涨和下跌的家数", "上涨家数和下跌家数", "how many rose and how many
fell") need as many counting columns in the answer; a count spread over rows by a grouping
expression or a date (then and now) may stand for them (undecidable). Counted in one SELECT, a bare
count() beside conditional ones (count() AS up, countIf(pct_chg < 0) AS down) counts every row, not
one of the things asked — unless the question asks a total too (一共, in total).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.kinds import top_k
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    Lang,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import (
    Sql,
    function_name,
    is_date_column,
    number_value,
)

CUE = re.compile(
    r"多少\s*(?:只|家|个|支|种)|(?<!哪)几\s*(?:只|家|个|支)|数量|家数|个数|只数"  # 哪几只 asks which ones
    r"|\bhow many\b(?!\s+shares)|\bnumber of\b(?!\s+shares)|\bcount of\b"
)
COUNTING = ("count", "uniq", "approxdistinct")
# Two states counted side by side: 上涨和下跌的家数, number of gainers and losers.
_DIRECTION_ZH = r"(?:上涨|下跌|涨停|跌停|平盘|收涨|收跌|红盘|绿盘|涨|跌|平)(?:的)?(?:股票)?"
_PAIR_BEFORE_CUE = re.compile(
    rf"{_DIRECTION_ZH}\s*(?:和|与|及|以及|、)\s*{_DIRECTION_ZH}\s*的?\s*(?:各有|分别有|各|分别)?\s*$"
)
_DIRECTION_EN = r"(?:gainers|losers|advancers|decliners|risers|fallers|advancing|declining|rising|falling)"
_PAIR_AFTER_CUE = re.compile(rf"^\s*(?:stocks\s+)?{_DIRECTION_EN}\s+(?:and|vs\.?|versus)\s+{_DIRECTION_EN}")
# A cue the answer is ranked or filtered by (取数量最多的5个, 按家数排序, with the highest number of):
# the count asked before, referred back to, no second count.
_RANKS_AFTER_CUE = re.compile(r"^\s*(?:最多|最少|最高|最低|最大|最小|排名|排序|降序|升序|从高到低|从低到高)")
_RANKS_BEFORE_CUE = re.compile(
    r"(?:按|按照|以|根据|\b(?:by|the highest|the largest|the lowest|the most))\s*$"
)
_JOINED_CUES = re.compile(r"^\s*(?:和|与|及|以及|、|,|，|and)\s*")
# A total counted beside the states: every row counted is one of the things asked.
_TOTAL = re.compile(r"总数|总共|一共|合计|总计|全部|所有|\b(?:in total|altogether|overall|total|all)\b")


@dataclass(frozen=True)
class CountDetail:
    kind: ClassVar[Kind] = Kind.COUNT
    over_top: int  # 0, or k when the rows counted are the top k
    items: int = 1  # how many things are counted side by side (上涨和下跌的家数: 2)
    total: bool = False  # a total asked beside them: a count of every row is one of the things

    def check(self, sql: Sql) -> Finding:
        tree = sql.tree
        if not isinstance(tree, exp.Select):
            return undecided("the output of a combined query is not read")
        # What the answer shows: the outer projections, through the subqueries they come from.
        shown = [sql.resolve(projection, tree) for projection in tree.expressions]
        counting = {
            function_name(node)
            for projection in shown
            for node in projection.find_all(exp.Func)
            if function_name(node).startswith(COUNTING)
        }
        if not counting:
            if any(_sums_a_condition(projection) for projection in shown):
                return undecided("a sum over a condition (or of 1) may count the rows")
            if any(
                function_name(n) in {"length", "arraycount", "size"}
                for p in shown
                for n in p.find_all(exp.Func)
            ):
                return undecided("an array length may count the rows")
            return failed(
                Attribution.INTENT, "the question asks how many, the SQL returns rows without counting them"
            )
        if self.items > 1:
            columns = sum(
                any(function_name(node).startswith(COUNTING) for node in projection.find_all(exp.Func))
                or _sums_a_condition(projection)
                for projection in shown
            )
            if columns < self.items:
                if _groups_by_an_expression(tree):
                    return undecided("the counts may be spread over rows by a grouping expression")
                return failed(
                    Attribution.INTENT,
                    f"the question asks for {self.items} counts side by side, the answer shows {columns}",
                )
            if not self.total and _bare_beside_conditional(tree):
                return failed(
                    Attribution.CONDITION,
                    "a count with no condition stands beside conditional ones: it counts every row, not one "
                    f"of the {self.items} things counted side by side",
                )
        if not self.over_top:
            return passed(f"the answer is counted ({', '.join(sorted(counting))})")
        counts = [n for n in sql.nodes() if isinstance(n, exp.Func) and function_name(n).startswith(COUNTING)]
        if any(sql.reads_cut_rows(node, self.over_top) for node in counts):
            return passed(f"the rows counted are the top {self.over_top}")
        return failed(
            Attribution.AGGREGATION, f"the count runs over all rows, not over the top {self.over_top}"
        )


def _bare_beside_conditional(select: exp.Select) -> bool:
    """The SELECT's own columns count both with a condition (countIf, a sum of one) and without any."""
    conditions = (exp.If, exp.Case, exp.Predicate)
    bare = conditional = False
    for projection in select.expressions:
        counts = [n for n in projection.find_all(exp.Func) if function_name(n).startswith(COUNTING)]
        if any(function_name(n).endswith("if") for n in counts) or _sums_a_condition(projection):
            conditional = True
        elif counts and projection.find(*conditions) is None and projection.find(exp.Subquery) is None:
            bare = True
    return bare and conditional


def _sums_a_condition(node: exp.Expr) -> bool:
    conditions = (exp.If, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
    return any(
        total.find(*conditions) or number_value(total.this) is not None for total in node.find_all(exp.Sum)
    )


def _groups_by_an_expression(select: exp.Select) -> bool:
    """A grouping expression (pct_chg > 0) or a date (two days' counts: then and now) may hold the
    things counted, one per row."""
    group = select.args.get("group")
    return isinstance(group, exp.Group) and any(
        not isinstance(key, exp.Column) or is_date_column(key.name.lower()) for key in group.expressions
    )


def _items(question: Question, cues: list[re.Match[str]]) -> int:
    """How many things the question counts side by side (1 unless it pairs them explicitly)."""
    text = question.text
    cues = [
        cue
        for cue in cues
        if cue is cues[0]
        or not (_RANKS_AFTER_CUE.match(text[cue.end() :]) or _RANKS_BEFORE_CUE.search(text[: cue.start()]))
    ]
    joined = sum(
        1
        for before, after in itertools.pairwise(cues)
        if _JOINED_CUES.match(text[before.end() : after.start()])
        or re.fullmatch(r"\s*(?:和|与|及|以及|、)\s*\S{1,6}", text[before.end() : after.start()])
    )
    if joined:
        return joined + 1
    first = cues[0]
    if _PAIR_BEFORE_CUE.search(text[max(0, first.start() - 16) : first.start()]):
        return 2
    if _PAIR_AFTER_CUE.match(text[first.end() :]) or re.search(r"\band how many\b", text[first.end() :]):
        return 2
    return 1


def _over_top(question: Question, cue: re.Match[str]) -> int:
    """k when the count is asked among top-k rows named with it."""
    text = question.text
    for constraint in top_k.extract(question):
        assert isinstance(constraint.detail, top_k.TopKDetail)
        span = constraint.span
        if question.lang is Lang.ZH:
            among = span.end <= cue.start() and re.search(r"里|之中|当中|中", text[span.end : cue.start()])
        else:
            among = (
                span.end <= cue.start() and re.search(r"\b(?:of|among)(?: the)?\s*$", text[: span.start])
            ) or (
                cue.end() <= span.start
                and re.fullmatch(r"\s*(?:of|among) the\s*", text[cue.end() : span.start])
            )
        if among:
            return constraint.detail.k
    return 0


def extract(question: Question) -> list[Constraint]:
    # One count constraint per question: every cue asks the same thing of the SQL.
    cues = [match for match in CUE.finditer(question.text) if not question.covered(match.start())]
    if not cues:
        return []
    cue = cues[0]
    over_top = _over_top(question, cue)
    items = _items(question, cues)
    span = question.span(cue.start(), cue.end())
    among_zh, among_en = (f"（在前 {over_top} 名中）", f" among the top {over_top}") if over_top else ("", "")
    several_zh, several_en = (
        (f"（{items} 个计数并列）", f" ({items} counts side by side)") if items > 1 else ("", "")
    )
    text = question.says(
        f"“{span.text}”：结果是计数{among_zh}{several_zh}",
        f"“{span.text}”: the answer is a count{among_en}{several_en}",
    )
    total = _TOTAL.search(question.text) is not None
    return [Constraint(span, text, question.lang, CountDetail(over_top, items, total))]
