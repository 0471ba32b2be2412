"""The paradigm library's two experiments of the seed (issue 10 "Show"), free of Django:

- `tau_sensitivity`: for τ = 0..6, leave-one-out on the dev set — each question matched against a
  library built from the *other* questions (their QST and gold SQL), and the nearest paradigm whose
  template fills from the question's QST reused; the share of questions matched, adapted, and whose
  reused SQL is right by execution accuracy against the question's own gold SQL;
- `stream`: question streams with a given share of repeats of known questions (the hit-rate
  experiment), and two latency-free LangChain chat models that count their calls: `GoldChatModel`
  answers the SQL-generator prompt with the gold SQL of the question, `GoldCheckWriter` the
  reverse-question writer's prompt with one check recounting the gold's rows.

The pipeline runs of the hit-rate experiment need the database library; they are driven by
`manage.py paradigms experiments` (paradigms/experiments.py).
"""

from __future__ import annotations

import json
import random
import threading
import time
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from backend.domain.language.qst import Node
from backend.domain.language_bench.compare import ResultTable, compare_results
from backend.domain.paradigms.matching import ParadigmIndex
from backend.domain.paradigms.templates import (
    SqlTemplate,
    TemplateError,
    TemplateMismatch,
    extract_template,
    fill_template,
)

TAUS: tuple[float, ...] = (0, 1, 2, 3, 4, 5, 6)
REPEAT_SHARES: tuple[int, ...] = (0, 20, 40, 60, 80, 100)


@dataclass(frozen=True)
class GoldQuestion:
    question: str
    qst: Node  # the built-in engine's reading of the question
    gold_sql: str
    order_matters: bool


RunSql = Callable[[str], ResultTable | None]  # None: the SQL failed


def tau_sensitivity(
    items: Sequence[GoldQuestion], run_sql: RunSql, *, market_day: date | None, taus: Sequence[float] = TAUS
) -> dict[str, Any]:
    """Leave-one-out reuse on `items` for each τ (see the module docstring)."""
    templates: dict[int, SqlTemplate] = {}
    for number, item in enumerate(items):
        try:
            templates[number] = extract_template(item.qst, item.gold_sql, resolved_on=market_day)
        except TemplateError:
            continue  # a gold SQL the library could not store
    index = ParadigmIndex()
    for number in templates:
        index.add(number, items[number].qst)
    gold_results: dict[int, ResultTable | None] = {}
    right_cache: dict[tuple[int, int], bool] = {}

    def right(question: int, sql: str, paradigm: int) -> bool:
        key = (question, paradigm)
        if key not in right_cache:
            if question not in gold_results:
                gold_results[question] = run_sql(items[question].gold_sql)
            gold, pred = gold_results[question], run_sql(sql)
            right_cache[key] = (
                gold is not None
                and pred is not None
                and compare_results(gold, pred, order_matters=items[question].order_matters).match
            )
        return right_cache[key]

    widest = max(taus)
    rows = []
    per_question: list[list[tuple[float, int, str | None]]] = []
    for number, item in enumerate(items):
        found = []
        for match in index.nearest(item.qst, tau=widest, top_k=None):
            if match.paradigm_id == number:
                continue
            try:
                filled: str | None = fill_template(
                    templates[match.paradigm_id], item.qst, market_day=market_day
                )
            except TemplateMismatch:
                filled = None
            found.append((match.distance, match.paradigm_id, filled))
        per_question.append(found)
    for tau in taus:
        matched = adapted = correct = 0
        for number, found in enumerate(per_question):
            within = [entry for entry in found if entry[0] <= tau]
            if not within:
                continue
            matched += 1
            reusable = next(((paradigm, sql) for _d, paradigm, sql in within if sql is not None), None)
            if reusable is None:
                continue
            adapted += 1
            correct += right(number, reusable[1], reusable[0])
        total = len(items)
        rows.append(
            {
                "tau": tau,
                "questions": total,
                "matched": matched,
                "adapted": adapted,
                "right": correct,
                "matched_share": round(matched / total, 4),
                "adapted_share": round(adapted / total, 4),
                "right_share": round(correct / total, 4),
                "precision": round(correct / adapted, 4) if adapted else None,
            }
        )
    return {"questions": len(items), "storable": len(templates), "rows": rows}


def stream(
    known: Sequence[str], unseen: Sequence[str], *, repeat_percent: int, length: int, seed: int
) -> list[tuple[str, bool]]:
    """`length` questions, `repeat_percent`% of them re-asked known questions (with replacement), the
    rest unseen ones (each at most once), shuffled; each with whether it is a repeat."""
    rng = random.Random(f"{seed}:{repeat_percent}")
    repeats = round(length * repeat_percent / 100)
    if length - repeats > len(unseen):
        raise ValueError(f"{length - repeats} unseen questions needed, {len(unseen)} available")
    chosen = [(rng.choice(list(known)), True) for _ in range(repeats)]
    chosen += [(question, False) for question in rng.sample(list(unseen), length - repeats)]
    rng.shuffle(chosen)
    return chosen


class _GoldStub(BaseChatModel):
    """A latency-free chat model answering one role's prompt from the question's gold SQL and counting
    its calls. It cannot bind tools, so the role uses its text path, exactly as with any model
    without tool calling."""

    answers: dict[str, str]
    latency_s: float = 0.0  # a real endpoint's answer time, slept (0: latency-free)
    _calls: list[str] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "gold-stub"

    @property
    def calls(self) -> int:
        return len(self._calls)

    @abstractmethod
    def _question(self, prompt: str) -> str:
        """The question the role's prompt is about."""

    @abstractmethod
    def _reply(self, question: str, gold_sql: str) -> dict[str, Any]:
        """The role's answer, as the JSON it asks for."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        question = self._question(str(messages[-1].content))
        with self._lock:
            self._calls.append(question)
        reply = self._reply(question, self.answers.get(question, "SELECT 1"))
        if self.latency_s:
            time.sleep(self.latency_s)
        message = AIMessage(content=json.dumps(reply, ensure_ascii=False))
        return ChatResult(generations=[ChatGeneration(message=message)])


class GoldChatModel(_GoldStub):
    """The SQL-generator role: answers the prompt's question with its gold SQL."""

    def _question(self, prompt: str) -> str:
        return prompt.rsplit("Question:", 1)[-1].strip()

    def _reply(self, question: str, gold_sql: str) -> dict[str, Any]:
        return {"sql": gold_sql, "explanation": ""}


class GoldCheckWriter(_GoldStub):
    """The reverse-question writer role: one check per answer, the gold SQL's rows counted (criterion
    `row_count`), which an answer equal to the gold's passes."""

    def _question(self, prompt: str) -> str:
        return prompt.split("Original question:", 1)[-1].split("\nForward SQL:", 1)[0].strip()

    def _reply(self, question: str, gold_sql: str) -> dict[str, Any]:
        check = {
            "question": f"{question} (rows counted again)",
            "point": "intent",
            "sql": f"SELECT count() FROM ({gold_sql})",
            "criterion": "row_count",
        }
        return {"questions": [check]}


def summarise_arm(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Mean time per validated (verified or corrected) question and LLM calls per question (both
    roles), the reverse-question writer's apart."""
    validated = [run for run in runs if run["status"] in ("verified", "corrected")]
    total_ms = sum(float(run["ms"]) for run in runs)
    return {
        "questions": len(runs),
        "validated": len(validated),
        "verified_round0": sum(run["status"] == "verified" for run in runs),
        "hits": sum(bool(run["adapted"]) for run in runs),
        "check_sets_reused": sum(bool(run["checks_reused"]) for run in runs),
        "ms_per_validated": round(total_ms / len(validated), 1) if validated else None,
        "llm_calls_per_question": round(sum(int(run["llm_calls"]) for run in runs) / len(runs), 3)
        if runs
        else None,
        "writer_calls_per_question": round(sum(int(run["writer_calls"]) for run in runs) / len(runs), 3)
        if runs
        else None,
    }
