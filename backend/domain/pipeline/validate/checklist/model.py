"""The checklist's vocabulary of results: constraint kinds, verdicts and what a failure is blamed on."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar, Protocol

if TYPE_CHECKING:
    from backend.domain.pipeline.validate.checklist.sqltree import Sql


class Lang(StrEnum):
    ZH = "zh"
    EN = "en"


class Kind(StrEnum):
    NUMBER = "number"
    DATE = "date"
    OPEN_RANGE = "open_range"
    WINDOW = "window"
    PER_GROUP = "per_group"
    TOP_K = "top_k"
    AGGREGATE = "aggregate"
    DISTINCT = "distinct"
    COUNT = "count"
    PERCENTAGE = "percentage"
    ORDER = "order"
    EVERY_PERIOD = "every_period"
    NEGATION = "negation"
    ENTITY = "entity"
    PERIOD_RETURN = "period_return"
    ANNUAL_REPORT = "annual_report"
    BAR_RELATION = "bar_relation"
    CROSSING = "crossing"
    COLUMN = "column"
    DAY_MOVE = "day_move"
    ADDITIVE = "additive"
    CLOSING_HIGH = "closing_high"
    PER_PERIOD = "per_period"
    WHOLE_SET = "whole_set"
    CONJUNCTION = "conjunction"
    SINGLE_QUARTER = "single_quarter"
    PROFIT_SIGN = "profit_sign"
    MAJORITY = "majority"
    WHOLE_LIST = "whole_list"
    DAY_COUNT = "day_count"
    EACH_STEP = "each_step"
    MONTH = "month"
    GROUP_SUBJECT = "group_subject"
    PRICE_ORDER = "price_order"
    TRADING_DAYS = "trading_days"
    GAP_SIZE = "gap_size"
    SHARED_THRESHOLD = "shared_threshold"
    GROUP_AVERAGE = "group_average"
    AGGREGATE_THRESHOLD = "aggregate_threshold"
    AVERAGE_LIST = "average_list"
    COUNTED_THING = "counted_thing"
    LIMIT_MOVE = "limit_move"
    PERCENT_SHOWN = "percent_shown"
    SAME_PERIOD = "same_period"
    WINDOW_END = "window_end"
    BELOW_BOOK = "below_book"
    HAS_VALUE = "has_value"
    COUNT_CONDITION = "count_condition"
    POLARITY = "polarity"
    STOCK_SUBJECT = "stock_subject"


class Outcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    UNDECIDABLE = "undecidable"


class Level(StrEnum):
    SYNTAX = "syntax"
    EXECUTION = "execution"
    CONSTRAINT = "constraint"


class Attribution(StrEnum):
    """What a failed check blames, so that a correction round can say what to change."""

    INTENT = "intent"
    ENTITY_MAPPING = "entity_mapping"
    CONDITION = "condition"  # a condition omitted or wrong
    AGGREGATION = "aggregation"
    GROUPING = "grouping"
    TIME_SCOPE = "time_scope"
    UNIT = "unit"
    TOP_K = "top_k"
    INVALID_SQL = "invalid_sql"  # the syntax and execution levels: there is no answer to judge


@dataclass(frozen=True)
class Span:
    """Where in the question a constraint was read (offsets into the original text)."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Finding:
    outcome: Outcome
    reason: str
    attribution: Attribution | None = None

    def __post_init__(self) -> None:
        # A failure without a culprit cannot guide a correction; a pass with one is a contradiction.
        if (self.outcome is Outcome.FAIL) != (self.attribution is not None):
            raise ValueError("a failure, and only a failure, carries an attribution")


def passed(reason: str) -> Finding:
    return Finding(Outcome.PASS, reason)


def failed(attribution: Attribution, reason: str) -> Finding:
    return Finding(Outcome.FAIL, reason, attribution)


def undecided(reason: str) -> Finding:
    return Finding(Outcome.UNDECIDABLE, reason)


class Detail(Protocol):
    """What a constraint of one kind requires, and how to judge a candidate SQL against it."""

    kind: ClassVar[Kind]

    def check(self, sql: Sql) -> Finding: ...


@dataclass(frozen=True)
class Constraint:
    span: Span
    text: str  # readable, in the question's language
    lang: Lang
    detail: Detail

    @property
    def kind(self) -> Kind:
        return self.detail.kind


@dataclass(frozen=True)
class Verdict:
    level: Level
    outcome: Outcome
    reason: str
    attribution: Attribution | None
    constraint: Constraint | None  # None at the syntax and execution levels

    @classmethod
    def of(cls, level: Level, finding: Finding, constraint: Constraint | None = None) -> Verdict:
        return cls(level, finding.outcome, finding.reason, finding.attribution, constraint)
