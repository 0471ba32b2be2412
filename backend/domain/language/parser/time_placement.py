"""Where each time of a question belongs: the question's day or window, a report period, or one
comparison (近10个交易日涨幅超过20%且今日换手率大于10%). Run by the assembly, after all passes."""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import BoolOp, Compare, Condition, Not, Screen, TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.errors import NotUnderstood
from backend.domain.language.semantic import Metric, SemanticModel

PlacedCondition = tuple[Condition, bool, str]  # (condition, is an entity scope, connector before it)
REPORT_LIKE = {"year", "annual", "quarter", "last_year", "year_before"}  # times that name a report period


def attach_second_times(
    conditions: list[PlacedCondition], starts: list[int], times: list[Token]
) -> list[PlacedCondition]:
    """近10个交易日涨幅超过20%且今日换手率大于10%: the first market time is the question's; a later,
    different one belongs to the comparison written next to it."""
    market_times = [token for token in times if token.value.label not in REPORT_LIKE]
    if not market_times:
        return conditions
    first = market_times[0].value
    result = list(conditions)
    for token in market_times[1:]:
        if token.value == first:
            continue
        candidates = [
            k for k, (condition, is_scope, _c) in enumerate(result)
            if isinstance(condition, Compare) and condition.time is None and not is_scope
        ]  # fmt: skip
        if not candidates:
            continue
        nearest = min(candidates, key=lambda k: (abs(starts[k] - token.start), starts[k] < token.start))
        condition, is_scope, connector = result[nearest]
        assert isinstance(condition, Compare)
        result[nearest] = (replace(condition, time=token.value), is_scope, connector)
    return result


def place_times(model: SemanticModel, screen: Screen, times: list[Token]) -> None:
    """The question's time; a report year mixed with market data goes to the fundamentals only."""
    specs: list[TimeSpec] = []
    for token in times:
        if token.value not in specs:
            specs.append(token.value)
    if not specs:
        return
    daily_specs = [spec for spec in specs if spec.label not in REPORT_LIKE]
    report_specs = [spec for spec in specs if spec.label in REPORT_LIKE]
    if len(report_specs) > 1:
        # "2023年和2024年净利润都…": one condition over several periods is not in the grammar yet
        words = ", ".join(f"'{token.text}'" for token in times if token.value in report_specs)
        raise NotUnderstood(
            f"several report periods ({words}) for one question: ask about one period at a time"
        )
    metrics = model.metrics
    kinds = {
        metrics[c.metric].kind for c in _compares(screen.where) if c.metric in metrics and c.time is None
    }
    if report_specs and (daily_specs or ("daily" in kinds and "report" in kinds)):
        # 2025年9月8日 … 2024年净利润 / "PE below 30 or 2024 revenue growth": the year belongs to the
        # fundamentals, the trading day (latest unless given) to the market data
        screen.time = daily_specs[0] if daily_specs else TimeSpec()
        screen.where = [_with_report_time(condition, report_specs[0], metrics) for condition in screen.where]
        return
    screen.time = specs[0]


def _compares(conditions: list[Condition]) -> list[Compare]:
    found: list[Compare] = []
    for condition in conditions:
        if isinstance(condition, Compare):
            found.append(condition)
        elif isinstance(condition, BoolOp):
            found.extend(_compares(list(condition.items)))
        elif isinstance(condition, Not):
            found.extend(_compares([condition.item]))
    return found


def _with_report_time(condition: Condition, spec: TimeSpec, metrics: dict[str, Metric]) -> Condition:
    if (
        isinstance(condition, Compare)
        and condition.time is None
        and metrics[condition.metric].kind == "report"
    ):
        return replace(condition, time=spec)
    if isinstance(condition, BoolOp):
        return BoolOp(condition.op, tuple(_with_report_time(item, spec, metrics) for item in condition.items))
    if isinstance(condition, Not):
        return Not(_with_report_time(condition.item, spec, metrics))
    return condition
