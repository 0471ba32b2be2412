"""The LLM's reverse-question writer and judge in the pipeline, with LangChain fake chat models.

They may add checks and decide them, under the independence rule: a check's criterion reads only the
answer's rows and its own rows; the judge sees one check and those two results, never another check
or verdict. Their failures never make an answer verified. (The same through the real client and the
loopback HTTP stub: test_llm_faults.py; models obeying injections: test_llm_injection.py.)
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from backend.domain.language.context import LanguageContext
from backend.domain.language.llm import JudgeRole, ReverseQuestionWriterRole
from backend.domain.language.translation import OnFailure
from backend.domain.market.store import MarketStore
from backend.domain.pipeline.run import PipelineOutcome, PipelineSettings, Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import default_vocabulary
from backend.domain.pipeline.validate.llm_checks import LlmCheckRoles
from tests.pipeline.test_run import GOLD, QUESTION, WRONG, ScriptedGenerator

LATEST = "(SELECT max(trade_date) FROM market.daily)"
# Stocks of the (right) answer under 100 billion: none.
UNDER = (
    f"SELECT ts_code FROM market.daily_basic WHERE trade_date = {LATEST} AND total_mv <= 10000000 "
    f"AND ts_code IN ({GOLD})"
)
# Every stock over 100 billion: all must be in the answer.
OVER = f"SELECT ts_code, total_mv FROM market.daily_basic WHERE trade_date = {LATEST} AND total_mv > 10000000"
COUNT = f"SELECT count() FROM market.daily_basic WHERE trade_date = {LATEST} AND total_mv > 10000000"


def check(question: str, sql: str, criterion: str, point: str = "condition") -> dict[str, str]:
    return {"question": question, "point": point, "sql": sql, "criterion": criterion}


def written(*checks: dict[str, str]) -> AIMessage:
    return AIMessage(content=json.dumps({"questions": list(checks)}, ensure_ascii=False))


def verdict(ok: bool, reason: str) -> AIMessage:
    return AIMessage(content=json.dumps({"ok": ok, "reason": reason}))


class RuleJudge(BaseChatModel):
    """A fake chat model that judges from what its prompt holds (so the order calls arrive in on the
    thread pool does not matter) and keeps every prompt."""

    ok_when: str  # ok=true when the prompt's reverse SQL contains this
    prompts: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "rule-judge"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = "\n".join(message.text for message in messages)
        self.prompts.append(prompt)
        reverse_sql = prompt.split("Reverse SQL:", 1)[1].split("Answer rows:", 1)[0]
        message = verdict(self.ok_when in reverse_sql, "decided from the two results")
        return ChatResult(generations=[ChatGeneration(message=message)])


@pytest.fixture
def context(demo_store: MarketStore) -> LanguageContext:
    return LanguageContext.from_store(demo_store, today=date(2026, 11, 30))


def ask(
    store: MarketStore,
    context: LanguageContext,
    writer_answers: list[str | AIMessage],
    judge: BaseChatModel | None = None,
    *,
    sql: str = GOLD,
    writer_on_failure: OnFailure = "fail",
    judge_on_failure: OnFailure = "fail",
    rounds: int = 0,
) -> PipelineOutcome:
    roles = LlmCheckRoles(
        writer=ReverseQuestionWriterRole(GenericFakeChatModel(messages=iter(writer_answers)), max_retries=0),
        context=context,
        writer_on_failure=writer_on_failure,
        judge=JudgeRole(judge, max_retries=0) if judge is not None else None,
        judge_on_failure=judge_on_failure,
    )
    ports = Ports(store, ScriptedGenerator([sql]), default_vocabulary(), store.database, llm_checks=roles)
    return run_pipeline(QUESTION, ports, PipelineSettings(max_rounds=rounds))


def llm_results(outcome: PipelineOutcome) -> list[tuple[str, str]]:
    assert outcome.answer is not None
    return [(c.text, c.verdict) for c in outcome.answer.checks if c.check_id.startswith("llm-")]


def test_writer_checks_run_with_their_own_sql_and_criterion(
    demo_store: MarketStore, context: LanguageContext
) -> None:
    answers: list[str | AIMessage] = [
        written(
            check("Which returned stocks are worth 100bn or less?", UNDER, "no_rows"),
            check("Is any stock over 100bn missing?", OVER, "stocks_in_answer"),
            check("How many stocks are over 100bn?", COUNT, "row_count", "aggregation"),
        )
    ]
    outcome = ask(demo_store, context, answers)
    assert llm_results(outcome) == [
        ("Which returned stocks are worth 100bn or less?", "pass"),
        ("Is any stock over 100bn missing?", "pass"),
        ("How many stocks are over 100bn?", "pass"),
    ]
    assert outcome.status == "verified"
    assert len(outcome.check_llm_calls) == 1
    events = [e for e in outcome.trace.to_list() if e["type"] == "check_verdict"]
    assert {e["sql"] for e in events if str(e["check_id"]).startswith("llm-")} == {UNDER, OVER, COUNT}


def test_a_failing_writer_check_keeps_the_answer_from_verified(
    demo_store: MarketStore, context: LanguageContext
) -> None:
    outcome = ask(
        demo_store,
        context,
        [written(check("Any stock over 100bn missing?", OVER, "stocks_in_answer"))],
        sql=WRONG[3],
    )
    assert outcome.answer is not None
    [failed] = [c for c in outcome.answer.checks if c.check_id.startswith("llm-")]
    assert (failed.verdict, failed.attribution) == ("fail", "condition")
    assert "missing from the answer" in failed.reason
    assert outcome.status == "unverified"


@pytest.mark.parametrize("on_failure", ["fail", "builtin"])
def test_a_writer_that_answers_garbage_never_verifies(
    demo_store: MarketStore, context: LanguageContext, on_failure: OnFailure
) -> None:
    outcome = ask(demo_store, context, ["I think the answer is fine."], writer_on_failure=on_failure)
    assert outcome.answer is not None
    if on_failure == "fail":
        [undecided] = [c for c in outcome.answer.checks if c.kind == "llm_writer"]
        assert undecided.verdict == "undecidable" and "writer failed" in undecided.reason
        assert outcome.status == "unverified"
        assert any("writer failed" in w for w in outcome.warnings)
    else:  # the built-in checks decide alone, and the answer says the writer failed
        assert llm_results(outcome) == []
        assert outcome.status == "verified"
        assert any("writer failed" in w and "built-in checks decided alone" in w for w in outcome.warnings)


def test_the_judge_decides_each_check_from_its_own_result_only(
    demo_store: MarketStore, context: LanguageContext
) -> None:
    judge = RuleJudge(ok_when="<= 10000000")
    answers: list[str | AIMessage] = [
        written(
            check("Which returned stocks are worth 100bn or less?", UNDER, "judge"),
            check("Which stocks are worth over 100bn?", OVER, "judge"),
        )
    ]
    outcome = ask(demo_store, context, answers, judge)
    assert llm_results(outcome) == [
        ("Which returned stocks are worth 100bn or less?", "pass"),
        ("Which stocks are worth over 100bn?", "fail"),
    ]
    assert outcome.status == "unverified"
    assert len(judge.prompts) == 2
    texts = {
        UNDER: "Which returned stocks are worth 100bn or less?",
        OVER: "Which stocks are worth over 100bn?",
    }
    for prompt in judge.prompts:
        reverse_sql = prompt.split("Reverse SQL:", 1)[1].split("Answer rows:", 1)[0].strip()
        [other] = [sql for sql in texts if sql != reverse_sql]
        assert texts[reverse_sql] in prompt and texts[other] not in prompt  # never another check
        assert not re.search(r"\b(pass|fail|undecidable|verdict)\b", prompt)  # never a verdict
        assert QUESTION in prompt and "Answer rows:" in prompt and "Reverse query rows:" in prompt


def test_verdicts_do_not_depend_on_the_order_of_the_checks(
    demo_store: MarketStore, context: LanguageContext
) -> None:
    checks = [
        check("Which returned stocks are worth 100bn or less?", UNDER, "judge"),
        check("Is any stock over 100bn missing?", OVER, "stocks_in_answer"),
        check("Which stocks are worth over 100bn?", OVER, "judge"),
    ]
    verdicts = []
    for ordered in (checks, checks[::-1]):
        outcome = ask(demo_store, context, [written(*ordered)], RuleJudge(ok_when="<= 10000000"))
        verdicts.append(sorted(llm_results(outcome)))
    assert verdicts[0] == verdicts[1]


@pytest.mark.parametrize("on_failure", ["fail", "builtin"])
def test_a_judge_that_answers_garbage_never_verifies(
    demo_store: MarketStore, context: LanguageContext, on_failure: OnFailure
) -> None:
    judge = GenericFakeChatModel(messages=iter(["Looks good to me!"]))
    answers: list[str | AIMessage] = [
        written(check("Which returned stocks are worth 100bn or less?", UNDER, "judge"))
    ]
    outcome = ask(demo_store, context, answers, judge, judge_on_failure=on_failure)
    if on_failure == "fail":
        [(_, result)] = llm_results(outcome)
        assert result == "undecidable" and outcome.status == "unverified"
    else:
        assert llm_results(outcome) == [] and outcome.status == "verified"
        assert any("judge failed" in w and "check left out" in w for w in outcome.warnings)


def test_without_a_judge_the_writer_may_not_ask_for_one(
    demo_store: MarketStore, context: LanguageContext
) -> None:
    outcome = ask(demo_store, context, [written(check("Is it right?", UNDER, "judge"))])
    assert outcome.answer is not None
    [undecided] = [c for c in outcome.answer.checks if c.kind == "llm_writer"]
    assert "criterion 'judge' is not one of" in undecided.reason
    assert outcome.status == "unverified"


def test_every_llm_criterion_reads_only_the_answer_and_its_own_result() -> None:
    """Architecture: an LLM check is decided by a function of (r0, own) — the built-in checks' own
    contract (reverse/model.py) — and the module never reads a verdict of any check."""
    import inspect
    from pathlib import Path

    from backend.domain.pipeline.validate import llm_checks

    deciders = [*llm_checks.CRITERIA.values(), llm_checks._Judged.__call__]
    for decide in deciders:
        parameters = [name for name in inspect.signature(decide).parameters if name != "self"]
        assert parameters == ["r0", "own"], decide
    assert set(llm_checks.CRITERIA) | {"judge"} == set(llm_checks.CRITERION_TEXT)
    source = Path(llm_checks.__file__).read_text(encoding="utf-8")
    assert not re.search(r"\.verdict\b", source)


def test_a_writer_prompt_over_the_budget_is_sent_with_a_shorter_preview(
    demo_store: MarketStore, context: LanguageContext
) -> None:
    from langchain_core.callbacks import BaseCallbackHandler

    from backend.domain.language.llm.budget import estimate_request_tokens
    from backend.domain.language.llm.roles import ReverseQuestions

    class Messages(BaseCallbackHandler):
        def __init__(self) -> None:
            self.sent: list[list[str]] = []

        def on_chat_model_start(
            self, serialized: Any, messages: list[list[BaseMessage]], **kwargs: Any
        ) -> None:
            self.sent.append([message.text for message in messages[0]])

    def run(budget: int) -> tuple[PipelineOutcome, Messages]:
        recorder = Messages()
        model = GenericFakeChatModel(
            messages=iter([written(check("q", UNDER, "no_rows"))]), callbacks=[recorder]
        )
        roles = LlmCheckRoles(
            writer=ReverseQuestionWriterRole(model, max_retries=0, prompt_token_budget=budget),
            context=context,
            writer_on_failure="fail",
        )
        ports = Ports(
            demo_store, ScriptedGenerator([GOLD]), default_vocabulary(), demo_store.database, llm_checks=roles
        )
        return run_pipeline(QUESTION, ports, PipelineSettings(max_rounds=0)), recorder

    _, full = run(10**6)
    [ten_rows] = full.sent
    outcome, short = run(estimate_request_tokens(ten_rows, ReverseQuestions) - 1)
    [three_rows] = short.sent
    rows = outcome.answer.result.rows if outcome.answer and outcome.answer.result else []
    assert f"… {len(rows) - 10} more row(s)" in ten_rows[1]
    assert f"… {len(rows) - 3} more row(s)" in three_rows[1]
    assert llm_results(outcome) == [("q", "pass")]
