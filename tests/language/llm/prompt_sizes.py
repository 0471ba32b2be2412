"""Prompt sizes of the SQL generator before and after schema linking, as the real client sends them.

For 10 dev-set questions (Chinese and English; screens, technical patterns, statistics) the
ChatOpenAI client talks to the loopback stub twice: once with the whole schema (what the translator
sent before linking) and once through today's LlmTranslator. Sizes are the request's message
characters and its estimated tokens (messages, the tool definition and the template overhead).

    python -m tests.language.llm.prompt_sizes      # builds the ~300-stock demo in a temp directory
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from backend.domain.language.context import LanguageContext
from backend.domain.language.llm import LlmSettings, LlmTranslator, SqlGeneratorRole, build_chat_model
from backend.domain.language.llm.budget import TEMPLATE_OVERHEAD_TOKENS, estimate_tokens
from tests.language.llm.openai_stub import OpenAiStub, Reply, Request

DEV_SET = Path(__file__).resolve().parents[3] / "benchmarks" / "language" / "dev_set.yaml"
QUESTION_IDS = (
    "fund-001",
    "fund-002",
    "fund-012",
    "fund-022",
    "fund-033",
    "fund-049",
    "tech-027",
    "tech-043",
    "stat-024",
    "stat-037",
)
SQL = "SELECT ts_code FROM market.stock_basic"


@dataclass(frozen=True)
class Size:
    characters: int
    tokens: int


@dataclass(frozen=True)
class Row:
    question_id: str
    question: str
    before: Size
    after: Size


def request_size(request: Request) -> Size:
    tools = json.dumps(request.body.get("tools", []), ensure_ascii=False)
    tokens = sum(estimate_tokens(str(m.get("content") or "")) for m in request.body["messages"])
    return Size(len(request.text), tokens + estimate_tokens(tools) + TEMPLATE_OVERHEAD_TOKENS)


def dev_questions() -> list[tuple[str, str]]:
    items = {item["id"]: item["question"] for item in yaml.safe_load(DEV_SET.read_text("utf-8"))["items"]}
    return [(key, items[key]) for key in QUESTION_IDS]


def measure(context: LanguageContext, stub: OpenAiStub) -> list[Row]:
    settings = LlmSettings.from_mapping(
        {"LLM_BASE_URL": stub.base_url, "LLM_MODEL": "qwen2.5-coder-1.5b", "LLM_MAX_RETRIES": "0"}
    ).role("sql_generator")
    # Before linking the translator sent context.schema_prompt() whole, with no budget to stop it.
    unbounded = SqlGeneratorRole(build_chat_model(settings), max_retries=0, prompt_token_budget=10**9)
    linked = LlmTranslator(SqlGeneratorRole.from_settings(settings))
    rows = []
    for key, question in dev_questions():
        stub.replies = [Reply(tool_args={"sql": SQL}), Reply(tool_args={"sql": SQL})]
        unbounded.generate(question, context.schema_prompt())
        translation = linked.translate(question, context)
        assert translation.status == "ok", translation.message
        before, after = (request_size(request) for request in stub.requests[-2:])
        rows.append(Row(key, question, before, after))
    return rows


def table(rows: list[Row]) -> str:
    lines = [
        "| question | before: chars | before: est. tokens | after: chars | after: est. tokens |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.question_id} {row.question} | {row.before.characters:,} | {row.before.tokens:,} "
            f"| {row.after.characters:,} | {row.after.tokens:,} |"
        )
    return "\n".join(lines)


def main() -> None:
    from backend.domain.market.config import StoreConfig
    from backend.domain.market.demo import generate_demo
    from backend.domain.market.store import MarketStore
    from tests.conftest import DEMO_SEED, DEMO_STOCKS

    with tempfile.TemporaryDirectory() as directory:
        store = MarketStore(StoreConfig(url=f"chdb://{directory}"))
        generate_demo(store, seed=DEMO_SEED, n_stocks=DEMO_STOCKS)
        stub = OpenAiStub().start()
        try:
            print(table(measure(LanguageContext.from_store(store), stub)))
        finally:
            stub.stop()


if __name__ == "__main__":
    main()
