"""Execution accuracy (EX) of a question translator on the dev set.

For each item: translate the question, run the predicted SQL and the gold SQL through the guarded
store, compare the two results (compare.py). Optionally ask the SpotIt equivalence checker whether
the predicted SQL is equivalent to the gold SQL (EX-SpotIt, reported beside EX).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from backend.domain.language.translation import Translation
from backend.domain.language_bench.compare import Comparison, ResultTable, compare_results
from backend.domain.language_bench.dataset import CATEGORIES, LANGS, DevItem
from backend.domain.language_bench.spotit import EquivalenceCheck, SpotItVerdict
from backend.domain.language_bench.ties import reversed_tie_break
from backend.domain.market.errors import MarketError
from backend.domain.market.store import MarketStore

TranslateFn = Callable[[str], Translation]


@dataclass
class VerifiedTranslation(Translation):
    """What the validation pipeline finally showed: the answer's SQL and its verification status
    (verified, corrected, unverified, not_understood, error)."""

    verification: str = ""


# Verification statuses that present the answer as checked: a wrong answer with one of them is silent.
CLAIMS_CHECKED = ("verified", "corrected")

MATCH = "match"
MISMATCH = "mismatch"
NOT_UNDERSTOOD = "not_understood"
TRANSLATION_ERROR = "translation_error"
EXECUTION_ERROR = "execution_error"
GOLD_ERROR = "gold_error"
REFUSED = "refused"  # a question the data cannot answer, refused: correct
ANSWERED_UNANSWERABLE = "answered_unanswerable"  # such a question answered anyway: silently wrong
# Outcomes where the user is shown rows as an answer although they answer something else.
SILENTLY_WRONG = (MISMATCH, ANSWERED_UNANSWERABLE)


@dataclass
class ItemOutcome:
    id: str
    category: str
    lang: str
    question: str
    status: str
    reason: str = ""
    engine: str = ""
    pred_sql: str | None = None
    gold_rows: int | None = None
    pred_rows: int | None = None
    only_in_gold: list[list[Any]] = field(default_factory=list)
    only_in_pred: list[list[Any]] = field(default_factory=list)
    translate_ms: float = 0.0
    spotit: SpotItVerdict | None = None
    verification: str = ""  # the pipeline's status, when the answers went through validation

    @property
    def correct(self) -> bool:
        return self.status in (MATCH, REFUSED)

    @property
    def silently_wrong(self) -> bool:
        """Rows shown as the answer although they answer something else, without a risk warning."""
        flagged = bool(self.verification) and self.verification not in CLAIMS_CHECKED
        return self.status in SILENTLY_WRONG and not flagged

    @property
    def spotit_conflict(self) -> bool:
        return self.status == MISMATCH and self.spotit is not None and self.spotit.verdict == "equivalent"


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


@dataclass
class ExReport:
    engine: str
    outcomes: list[ItemOutcome]
    spotit_enabled: bool = False
    spotit_note: str = ""

    def _group(self, outcomes: list[ItemOutcome]) -> dict[str, Any]:
        statuses: dict[str, int] = {}
        for outcome in outcomes:
            statuses[outcome.status] = statuses.get(outcome.status, 0) + 1
        group: dict[str, Any] = {
            "items": len(outcomes),
            "correct": sum(outcome.correct for outcome in outcomes),
            "ex": _share(sum(outcome.correct for outcome in outcomes), len(outcomes)),
            "statuses": dict(sorted(statuses.items())),
            "silently_wrong": sum(outcome.silently_wrong for outcome in outcomes),
            "claimed_checked": sum(outcome.verification in CLAIMS_CHECKED for outcome in outcomes),
            "flagged_unverified": sum(outcome.verification == "unverified" for outcome in outcomes),
            "silently_wrong_share": _share(sum(o.silently_wrong for o in outcomes), len(outcomes)),
        }
        if self.spotit_enabled:
            equivalent = sum(1 for o in outcomes if o.spotit is not None and o.spotit.verdict == "equivalent")
            group["spotit_equivalent"] = equivalent
            group["ex_spotit"] = _share(equivalent, len(outcomes))
            # Real data separates these, so SpotIt's "equivalent within K" needs a look: either the
            # smallest counterexample is larger than K, or the checker is unsound on that query.
            group["spotit_equivalent_but_results_differ"] = [o.id for o in outcomes if o.spotit_conflict]
        return group

    def summary(self) -> dict[str, Any]:
        return {
            "overall": self._group(self.outcomes),
            "by_category": {
                category: self._group([o for o in self.outcomes if o.category == category])
                for category in CATEGORIES
                if any(o.category == category for o in self.outcomes)
            },
            "by_lang": {
                lang: self._group([o for o in self.outcomes if o.lang == lang])
                for lang in LANGS
                if any(o.lang == lang for o in self.outcomes)
            },
        }

    def failures(self) -> list[ItemOutcome]:
        return [outcome for outcome in self.outcomes if not outcome.correct]

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "spotit_enabled": self.spotit_enabled,
            "spotit_note": self.spotit_note,
            "summary": self.summary(),
            "items": [asdict(outcome) for outcome in self.outcomes],
        }


def _run(store: MarketStore, sql: str) -> ResultTable:
    result = store.query(sql)
    return ResultTable(columns=result.columns, rows=result.rows)


def evaluate_item(
    item: DevItem,
    translate: TranslateFn,
    store: MarketStore,
    *,
    equivalence: EquivalenceCheck | None = None,
) -> ItemOutcome:
    outcome = ItemOutcome(
        id=item.id, category=item.category, lang=item.lang, question=item.question, status=""
    )
    started = time.perf_counter()
    try:
        translation = translate(item.question)
    except Exception as error:  # a translator must not raise; the benchmark records it as a failure
        outcome.translate_ms = (time.perf_counter() - started) * 1000
        outcome.status, outcome.reason = TRANSLATION_ERROR, f"{type(error).__name__}: {error}"
        return outcome
    outcome.translate_ms = round((time.perf_counter() - started) * 1000, 3)
    outcome.pred_sql = translation.sql
    outcome.engine = translation.engine
    if isinstance(translation, VerifiedTranslation):
        outcome.verification = translation.verification
    if not item.answerable:
        refused = translation.status != "ok" or not translation.sql
        outcome.status = REFUSED if refused else ANSWERED_UNANSWERABLE
        outcome.reason = translation.message if refused else "answered a question the data cannot answer"
        return outcome
    if translation.status != "ok" or not translation.sql:
        outcome.status = NOT_UNDERSTOOD if translation.status == "not_understood" else TRANSLATION_ERROR
        outcome.reason = translation.message or f"translator status {translation.status} without SQL"
        return outcome
    try:
        gold = _run(store, item.gold_sql)
    except MarketError as error:
        outcome.status, outcome.reason = GOLD_ERROR, f"gold SQL failed: {error}"
        return outcome
    outcome.gold_rows = len(gold.rows)
    pred: ResultTable | None = None
    comparison: Comparison | None = None
    try:
        pred = _run(store, translation.sql)
    except MarketError as error:
        outcome.status, outcome.reason = EXECUTION_ERROR, str(error)
    if pred is not None:
        outcome.pred_rows = len(pred.rows)
        comparison = compare_results(gold, pred, order_matters=item.order_matters)
        outcome.status = MATCH if comparison.match else MISMATCH
        outcome.reason = comparison.reason
        outcome.only_in_gold, outcome.only_in_pred = comparison.only_in_gold, comparison.only_in_pred
    if equivalence is not None:
        column_map = comparison.column_map if comparison is not None and comparison.match else {}
        spotit_sql = project_onto_gold(
            translation.sql, gold.columns, pred.columns if pred else [], column_map
        )
        outcome.spotit = equivalence(spotit_sql, item.gold_sql, item.order_matters)
    return outcome


def _quote(name: str) -> str:
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def project_onto_gold(
    pred_sql: str, gold_columns: list[str], pred_columns: list[str], column_map: dict[str, str]
) -> str:
    """The prediction reduced to the gold's columns, for the equivalence check.

    EX ignores extra predicted columns (name, close…); a bounded-equivalence check compares whole
    results, so the prediction is first projected on the columns EX matched to the gold's (by value), or
    failing that on the predicted columns named like the gold's. Without a full mapping it is left as is.
    """
    mapping = column_map or {name: name for name in gold_columns if name in pred_columns}
    if not gold_columns or len(mapping) != len(gold_columns) or list(mapping.values()) == pred_columns:
        return pred_sql
    select = ", ".join(f"{_quote(mapping[name])} AS {_quote(name)}" for name in gold_columns)
    return f"SELECT {select} FROM ({pred_sql}) AS pred_result"


def run_ex(
    items: Iterable[DevItem],
    translate: TranslateFn,
    store: MarketStore,
    *,
    equivalence: EquivalenceCheck | None = None,
    spotit_note: str = "",
    progress: Callable[[ItemOutcome], None] | None = None,
) -> ExReport:
    outcomes = []
    for item in items:
        outcome = evaluate_item(item, translate, store, equivalence=equivalence)
        if progress is not None:
            progress(outcome)
        outcomes.append(outcome)
    engines = sorted({outcome.engine for outcome in outcomes if outcome.engine})
    return ExReport(
        engine=", ".join(engines) or "unknown",
        outcomes=outcomes,
        spotit_enabled=equivalence is not None,
        spotit_note=spotit_note,
    )


@dataclass(frozen=True)
class GoldCheck:
    id: str
    rows: int | None
    elapsed_ms: float
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


def check_gold(items: Iterable[DevItem], store: MarketStore) -> list[GoldCheck]:
    """Run every gold SQL through the guarded store: each must run, return rows on the loaded data,
    and give the same answer when its ties are broken the other way."""
    checks = []
    for item in filter(lambda item: item.answerable, items):
        started = time.perf_counter()
        try:
            gold = _run(store, item.gold_sql)
            error = "" if gold.rows else "empty result"
        except MarketError as failure:
            gold, error = None, str(failure)
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        if gold is not None and not error and _answer_depends_on_ties(item, gold, store):
            error = "tie at the cut-off: the answer depends on how equal values are ordered"
        checks.append(GoldCheck(item.id, len(gold.rows) if gold is not None else None, elapsed, error))
    return checks


def _answer_depends_on_ties(item: DevItem, gold: ResultTable, store: MarketStore) -> bool:
    variant = reversed_tie_break(item.gold_sql)
    if variant is None:
        return False
    try:
        other = _run(store, variant)
    except MarketError:
        return False  # the tie-break is not expressible there (e.g. ordering aggregated groups)
    return not compare_results(gold, other, order_matters=item.order_matters).match
