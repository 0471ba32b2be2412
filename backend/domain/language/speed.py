"""Parse + compile speed of the built-in engine over a list of questions (no SQL is executed)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from backend.domain.language.context import LanguageContext
from backend.domain.language.engine import BuiltinTranslator

FALLBACK_QUESTIONS = (
    "2025年9月8日收盘价最高的上证所股票",
    "市盈率低于15且净利润连续三年增长",
    "今日收盘价突破60日均线的科技股有哪些",
    "统计各行业板块涨幅前三的股票及其平均市值",
    "PE below 15 and net profit up three years in a row",
    "top 10 stocks by market cap on the Shanghai exchange",
)


@dataclass
class SpeedReport:
    questions: int
    repeats: int
    median_ms: float
    p95_ms: float
    max_ms: float
    ok: int
    not_understood: int
    slowest: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def dev_set_questions(path: Path) -> list[str]:
    """Only the questions of the dev set (never its gold SQL)."""
    with path.open(encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    return [str(item["question"]) for item in data.get("items", []) if item.get("question")]


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def measure(context: LanguageContext, questions: Sequence[str], repeats: int = 3) -> SpeedReport:
    translator = BuiltinTranslator()
    translator.translate(questions[0], context)  # warm caches (lexicon, sqlglot)
    per_question: list[tuple[float, str, str]] = []
    ok = 0
    for question in questions:
        samples = []
        status = ""
        for _ in range(repeats):
            started = time.perf_counter()
            status = translator.translate(question, context).status
            samples.append((time.perf_counter() - started) * 1000)
        ok += status == "ok"
        per_question.append((statistics.median(samples), question, status))
    times = [sample for sample, _question, _status in per_question]
    slowest = sorted(per_question, reverse=True)[:5]
    return SpeedReport(
        questions=len(questions),
        repeats=repeats,
        median_ms=round(statistics.median(times), 3),
        p95_ms=round(_percentile(times, 0.95), 3),
        max_ms=round(max(times), 3),
        ok=ok,
        not_understood=len(questions) - ok,
        slowest=[{"question": q, "ms": round(ms, 3), "status": s} for ms, q, s in slowest],
    )
