"""Prompt sizes of the two check roles (reverse-question writer, judge) as the real client sends them.

The same 10 dev-set questions as prompt_sizes.py go through the pipeline (built-in generator, no
correction round) with the writer and the judge configured against the loopback stub; the stub
answers the writer with one check to be judged and the judge with ok. Sizes are the request's message
characters and its estimated tokens (messages, the tool definition and the template overhead),
against the default LLM_PROMPT_TOKEN_BUDGET.

    python -m tests.language.llm.check_prompt_sizes      # builds the ~300-stock demo in a temp directory
"""

from __future__ import annotations

import tempfile

from backend.domain.language.context import LanguageContext
from backend.domain.language.llm import JudgeRole, LlmSettings, ReverseQuestionWriterRole
from backend.domain.language.llm.settings import DEFAULT_PROMPT_TOKEN_BUDGET
from backend.domain.market.store import MarketStore
from backend.domain.pipeline.generators import BuiltinGenerator
from backend.domain.pipeline.run import PipelineSettings, Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import default_vocabulary
from backend.domain.pipeline.validate.llm_checks import LlmCheckRoles
from tests.language.llm.openai_stub import OpenAiStub, Reply
from tests.language.llm.prompt_sizes import Size, dev_questions, request_size

CHECK = {
    "question": "How many stocks have data on the latest trading day?",
    "point": "condition",
    "sql": "SELECT count() FROM market.daily WHERE trade_date = (SELECT max(trade_date) FROM market.daily)",
    "criterion": "judge",
}


def measure(store: MarketStore, stub: OpenAiStub) -> list[tuple[str, str, Size, Size]]:
    settings = LlmSettings.from_mapping(
        {"LLM_BASE_URL": stub.base_url, "LLM_MODEL": "qwen2.5-coder-1.5b", "LLM_MAX_RETRIES": "0"}
    )
    context = LanguageContext.from_store(store)
    roles = LlmCheckRoles(
        writer=ReverseQuestionWriterRole.from_settings(settings.role("reverse_question_writer")),
        context=context,
        writer_on_failure="fail",
        judge=JudgeRole.from_settings(settings.role("judge")),
    )
    ports = Ports(store, BuiltinGenerator(context), default_vocabulary(), store.database, llm_checks=roles)
    rows = []
    for key, question in dev_questions():
        stub.requests.clear()
        stub.replies = [
            Reply(tool_args={"questions": [CHECK]}),
            Reply(tool_args={"ok": True, "reason": "ok"}),
        ]
        outcome = run_pipeline(question, ports, PipelineSettings(max_rounds=0))
        if len(stub.requests) != 2:
            print(f"{key}: {outcome.status}, {len(stub.requests)} requests — skipped")
            continue
        writer, judge = (request_size(request) for request in stub.requests)
        rows.append((key, question, writer, judge))
    return rows


def main() -> None:
    from backend.domain.market.config import StoreConfig
    from backend.domain.market.demo import generate_demo
    from tests.conftest import DEMO_SEED, DEMO_STOCKS

    with tempfile.TemporaryDirectory() as directory:
        store = MarketStore(StoreConfig(url=f"chdb://{directory}"))
        generate_demo(store, seed=DEMO_SEED, n_stocks=DEMO_STOCKS)
        stub = OpenAiStub().start()
        try:
            rows = measure(store, stub)
        finally:
            stub.stop()
    print("| question | writer: chars | writer: est. tokens | judge: chars | judge: est. tokens |")
    print("|---|---:|---:|---:|---:|")
    for key, question, writer, judge in rows:
        print(
            f"| {key} {question} | {writer.characters:,} | {writer.tokens:,} "
            f"| {judge.characters:,} | {judge.tokens:,} |"
        )
    largest = max(max(writer.tokens, judge.tokens) for _, _, writer, judge in rows)
    print(f"largest: {largest:,} estimated tokens; budget {DEFAULT_PROMPT_TOKEN_BUDGET:,}")


if __name__ == "__main__":
    main()
