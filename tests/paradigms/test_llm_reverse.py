"""LLM-written reverse checks through the paradigm library (issue 10 item 5, second point of its
reopening): the writer's checks of a verified answer are learned as one set under the trees of the
question's reading and the answer's shape; the same question asked again runs the stored set, filled
and guarded, with their stored criteria — zero writer calls — and so does a literal variant whose
value the stored SQL compares with; another structure, or a set holding a value read off the
answer's rows, goes back to the writer."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator
from backend.domain.language.llm import ReverseQuestionWriterRole
from backend.domain.market.store import MarketStore
from backend.domain.pipeline.generators import BuiltinGenerator
from backend.domain.pipeline.ports import NoParadigmLibrary, ParadigmLibrary
from backend.domain.pipeline.run import PipelineOutcome, PipelineSettings, Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import default_vocabulary
from backend.domain.pipeline.validate.llm_checks import LlmCheckRoles, run_llm_checks
from paradigms.library import DatabaseParadigmLibrary
from paradigms.models import Kind, Paradigm
from tests.pipeline.test_llm_checks import COUNT, OVER, UNDER, check, written
from tests.pipeline.test_run import GOLD

pytestmark = pytest.mark.django_db

QUESTION = "总市值超过1000亿的股票"
VARIANT = "总市值超过500亿的股票"


class CountingWriter:
    """The writer's answer for a LangChain fake chat model: the same checks every time it is asked,
    and how many times that was."""

    def __init__(self, checks: list[dict[str, str]]) -> None:
        self.checks = checks
        self.calls = 0

    def __iter__(self) -> CountingWriter:
        return self

    def __next__(self) -> AIMessage:
        self.calls += 1
        return written(*self.checks)


def _ask(
    question: str,
    store: MarketStore,
    context: LanguageContext,
    writer: CountingWriter,
    *,
    library: ParadigmLibrary | None = None,
) -> PipelineOutcome:
    roles = LlmCheckRoles(
        writer=ReverseQuestionWriterRole(GenericFakeChatModel(messages=writer), max_retries=0),
        context=context,
        writer_on_failure="fail",
    )
    ports = Ports(
        store,
        BuiltinGenerator(context),
        default_vocabulary(),
        store.database,
        library=library or DatabaseParadigmLibrary(context),
        llm_checks=roles,
    )
    return run_pipeline(question, ports, PipelineSettings(max_rounds=0))


def _llm_checks(outcome: PipelineOutcome) -> list[tuple[str, str | None, str, str]]:
    assert outcome.answer is not None
    return [
        (c.text, c.sql, c.criterion, c.verdict)
        for c in outcome.answer.checks
        if c.check_id.startswith("llm-")
    ]


def _llm_events(outcome: PipelineOutcome) -> list[tuple[object, object]]:
    return [
        (event["outcome"], event["query"])
        for event in outcome.trace.to_list()
        if event["type"] == "paradigm" and str(event["query"]).startswith("llm-")
    ]


def test_a_stored_set_stands_in_for_the_writer_the_second_time(
    demo_store: MarketStore, paradigm_context: LanguageContext
) -> None:
    writer = CountingWriter(
        checks=[
            check("Which returned stocks are worth 100bn or less?", UNDER, "no_rows"),
            check("Is any stock over 100bn missing?", OVER, "stocks_in_answer"),
            check("How many stocks are over 100bn?", COUNT, "row_count", "aggregation"),
        ]
    )
    first = _ask(QUESTION, demo_store, paradigm_context, writer)
    assert first.status == "verified" and writer.calls == 1
    checks = _llm_checks(first)
    assert [verdict for *_rest, verdict in checks] == ["pass", "pass", "pass"]
    ids = [c.check_id for c in first.answer.checks if c.check_id.startswith("llm-")]  # type: ignore[union-attr]
    assert _llm_events(first) == [("miss", "llm-writer-r0"), *(("learned", check_id) for check_id in ids)]
    stored = Paradigm.objects.filter(kind=Kind.REVERSE, qst__label="reverse:llm").order_by("pk")
    assert [(p.question, p.check_spec) for p in stored] == [
        (
            "Which returned stocks are worth 100bn or less?",
            {"criterion": "no_rows", "point": "condition", "of": 3},
        ),
        (
            "Is any stock over 100bn missing?",
            {"criterion": "stocks_in_answer", "point": "condition", "of": 3},
        ),
        ("How many stocks are over 100bn?", {"criterion": "row_count", "point": "aggregation", "of": 3}),
    ]

    again = _ask(QUESTION, demo_store, paradigm_context, writer)
    assert writer.calls == 1  # zero writer calls the second time
    assert again.status == "verified" and again.check_llm_calls == []
    assert _llm_checks(again) == checks  # same questions, SQL, stored criteria, verdicts
    assert _llm_events(again) == [(outcome, check_id) for check_id in ids for outcome in ("hit", "adapted")]
    uses = {p.pk: p.daily_uses.get().uses for p in stored}
    assert set(uses.values()) == {1}

    # 1000亿 → 500亿: the QST's value (in 万元) is the literal the stored SQL compares with, so the
    # set fills; its checks are what the writer would write for the variant, with the same verdicts.
    variant = _ask(VARIANT, demo_store, paradigm_context, writer)
    assert writer.calls == 1
    adapted = [(text, sql, criterion) for text, sql, criterion, _verdict in _llm_checks(variant)]
    assert adapted == [
        (text, sql.replace("10000000", "5000000"), criterion)  # type: ignore[union-attr]
        for text, sql, criterion, _verdict in checks
    ]
    rewritten = CountingWriter(
        checks=[
            check(
                item["question"], item["sql"].replace("10000000", "5000000"), item["criterion"], item["point"]
            )
            for item in writer.checks
        ]
    )
    alone = _ask(VARIANT, demo_store, paradigm_context, rewritten, library=NoParadigmLibrary())
    assert _llm_checks(variant) == _llm_checks(alone) and variant.status == alone.status
    # Another reading of the question (other structure): nothing stored fits, the writer writes.
    _ask("市盈率低于15的银行股", demo_store, paradigm_context, writer)
    assert writer.calls == 2


def test_a_set_holding_a_value_of_the_answer_s_rows_is_not_stored(
    demo_store: MarketStore, paradigm_context: LanguageContext
) -> None:
    translation = BuiltinTranslator().translate(QUESTION, paradigm_context)
    assert translation.sql is not None
    answer = demo_store.query(translation.sql)
    code = str(answer.rows[0][answer.columns.index("ts_code")])
    read_off = f"SELECT ts_code FROM market.stock_basic WHERE ts_code = '{code}'"
    writer = CountingWriter(
        checks=[
            check("Is any stock over 100bn missing?", OVER, "stocks_in_answer"),
            check(f"Is {code} in the answer?", read_off, "stocks_in_answer"),
        ]
    )
    first = _ask(QUESTION, demo_store, paradigm_context, writer)
    assert first.status == "verified"
    assert not Paradigm.objects.filter(qst__label="reverse:llm").exists()  # not even the clean check
    assert [outcome for outcome, _query in _llm_events(first)] == ["miss"]
    _ask(QUESTION, demo_store, paradigm_context, writer)
    assert writer.calls == 2


def test_without_a_reading_of_the_question_the_writer_s_checks_run_unrecorded(
    demo_store: MarketStore, paradigm_context: LanguageContext
) -> None:
    writer = CountingWriter(checks=[check("Is any stock over 100bn missing?", OVER, "stocks_in_answer")])
    roles = LlmCheckRoles(
        writer=ReverseQuestionWriterRole(GenericFakeChatModel(messages=writer), max_retries=0),
        context=paradigm_context,
        writer_on_failure="fail",
    )
    answer = demo_store.query(GOLD)
    found = run_llm_checks(
        roles,
        QUESTION,
        GOLD,
        answer,
        [],
        demo_store,
        demo_store.database,
        round_number=0,
        workers=1,
        library=DatabaseParadigmLibrary(paradigm_context),
        qst=None,
    )
    assert [result.verdict for result in found.results] == ["pass"] and writer.calls == 1
    assert (found.library.used, found.library.missed, found.library.written) == ([], False, [])
