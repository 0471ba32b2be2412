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
import time

from sqlglot import exp

from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.validate.checklist import Attribution
from backend.domain.pipeline.validate.checklist.sqltree import Sql
from backend.domain.pipeline.validate.checklist.vocabulary import Vocabulary
from backend.domain.pipeline.validate.outcome import CheckResult, constraint_check
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


def _reads_lists(sql: Sql) -> bool:
    return any(table.name.lower() == _LISTS for table in sql.tree.find_all(exp.Table))


def _names_an_index(question: str, vocabulary: Vocabulary) -> bool:
    lowered = question.lower()
    names = (name.lower() for names in vocabulary.index_names.values() for name in names)
    return _INDEX_WORDS.search(question) is not None or any(name in lowered for name in names)


def _finding(question: str, sql: Sql, vocabulary: Vocabulary) -> tuple[str, Attribution] | None:
    if not _reads_lists(sql):
        return None
    if not _names_an_index(question, vocabulary):
        return (
            "the SQL reads index lists (index_weight) though the question names no index: only index "
            "members are kept",
            Attribution.CONDITION,
        )
    if ANY_TIME.search(question) is None and unmentioned_tables(sql, {_LISTS}, "trade_date"):
        return (
            "the SQL reads index_weight without picking a snapshot (its trade_date is never mentioned): "
            "every list ever published, members repeated once per snapshot",
            Attribution.TIME_SCOPE,
        )
    return None


def index_lists_check(question: str, sql: Sql, vocabulary: Vocabulary, lang: Lang) -> CheckResult | None:
    started = time.perf_counter()
    found = _finding(question, sql, vocabulary)
    if found is None:
        return None
    reason, blames = found
    return constraint_check(
        check_id="index_lists",
        kind="index_lists",
        text=says(lang, "指数成分名单按问题所指读取", "index lists are read as the question asks"),
        criterion=says(
            lang,
            "只在问题提到指数时读取成分名单，且只读所指的那一期",
            "index lists are read only for an index the question names, one snapshot of them",
        ),
        sql=None,
        verdict="fail",
        blames=blames,
        reason=reason,
        started=started,
    )
