"""Index lists (index_weight: one snapshot of each index's members a month) read the way the question
asks, judged on the tree; only a failure becomes a check.

- **every snapshot**: a SELECT reading index_weight whose trade_date it never mentions reads every
  list ever published — former members come in, and each member repeats once per snapshot in a count,
  a sum or a top k — unless the question asks about any time (ever, 曾经, at some point, 历史上).
- **no index asked**: a SQL reading index_weight for a question that names no index, constituent,
  member or weight keeps only the stocks of some index (a join that loses the others).
"""

from __future__ import annotations

import re

from sqlglot import exp

from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.checklist.sqltree import Sql
from backend.domain.pipeline.validate.checklist.vocabulary import Vocabulary
from backend.domain.pipeline.validate.outcome import CheckResult, tree_rule_check
from backend.domain.pipeline.validate.today import unmentioned_tables

_LISTS = "index_weight"
# Any time, not one list: every snapshot may be what is asked.
ANY_TIME = re.compile(
    r"曾经|曾|历史上|有史以来|任何时候|历次|所有名单"
    r"|\b(?:ever|at (?:some|any) (?:point|time)|at one time|historically|formerly|former)\b",
    re.IGNORECASE,
)
# Words for an index and its lists other than the indexes' own names.
_INDEX_WORDS = re.compile(
    r"成分|成份|指数|权重|\b(?:constituents?|members?|membership|indexes|indices|index|weights?|weighting)\b",
    re.IGNORECASE,
)


_NO_INDEX = (
    "the SQL reads index lists (index_weight) though the question names no index: only index members are kept"
)


def _reads_lists(sql: Sql) -> bool:
    return any(table.name.lower() == _LISTS for table in sql.tree.find_all(exp.Table))


def _names_an_index(question: str, vocabulary: Vocabulary) -> bool:
    lowered = question.lower()
    names = (name.lower() for names in vocabulary.index_names.values() for name in names)
    return _INDEX_WORDS.search(question) is not None or any(name in lowered for name in names)


def _every_snapshot(question: str, sql: Sql) -> str | None:
    if ANY_TIME.search(question) is None and unmentioned_tables(sql, {_LISTS}, "trade_date"):
        return (
            "the SQL reads index_weight without picking a snapshot (its trade_date is never mentioned): "
            "every list ever published, members repeated once per snapshot"
        )
    return None


def index_lists_check(question: str, sql: Sql, vocabulary: Vocabulary, lang: Lang) -> CheckResult | None:
    if not _reads_lists(sql):
        return None
    # an index named: its lists may be read, one snapshot of them; none named: they only lose stocks
    asked = _names_an_index(question, vocabulary)
    return tree_rule_check(
        "index_lists",
        text=says(lang, "指数成分名单按问题所指读取", "index lists are read as the question asks"),
        criterion=says(
            lang,
            "只在问题提到指数时读取成分名单，且只读所指的那一期",
            "index lists are read only for an index the question names, one snapshot of them",
        ),
        blames=Attribution.TIME_SCOPE if asked else Attribution.CONDITION,
        finding=lambda: _every_snapshot(question, sql) if asked else _NO_INDEX,
    )
