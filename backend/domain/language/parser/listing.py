"""Listing-date conditions: 2020年以后上市, listed before 2019, 上市超过5年."""

from __future__ import annotations

from backend.domain.language.ir import BoolOp, Condition, Scope
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, period_bounds, synthetic
from backend.domain.language.semantic import SemanticModel

PERIOD_KINDS = {"year", "date", "month"}
# "2023 or later", "2019年及以前": the period itself is included
INCLUSIVE = {"or later", "or after", "and later", "and after", "or earlier", "or before", "and earlier",
             "and before", "onward", "onwards", "及以后", "或以后", "及以前", "或以前"}  # fmt: skip
ALSO_WORDS = {"and", "和", "与"}  # between A and B: a span; A and B alone: two periods
# the listing's own periods, a grouping of listings (IPO count by listing year)
LISTING_PERIODS = {"list_year", "list_quarter", "list_month", "list_month_of_year"}


def listing(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    span = _span(tokens, i)
    if span and kind_at(tokens, i + span) == "listed":  # 2019年到2023年上市: from the first through the last
        return span + 1, [synthetic("cond", _span_scope(tokens, i, span), tokens[i : i + span + 1])]
    if _two_periods(tokens, i) and kind_at(tokens, i + 3) == "listed":  # 2019年和2023年上市的公司
        return 4, [synthetic("cond", _either_period(tokens, i), tokens[i : i + 4])]
    if token.kind in PERIOD_KINDS:
        # 2020年以后上市 / 2020年上市 / 2019年之前上市
        j = i + 1
        direction = None
        inclusive = False
        if kind_at(tokens, j) in {"after", "before", "early"}:
            direction = tokens[j].kind if tokens[j].kind != "early" else tokens[j].value
            inclusive = tokens[j].text in INCLUSIVE
            j += 1
        if kind_at(tokens, j) == "listed":
            scope = _list_date_scope(token, direction, english=False, inclusive=inclusive)
            return j + 1 - i, [synthetic("cond", scope, tokens[i : j + 1])]
        return None
    if token.kind == "listed" and _said_between(tokens, i + 1):
        # monthly IPO count in 2022: the grouping and the count word stand between listed and its year
        j = i + 1
        while _said_between(tokens, j):
            j += 1
        rest = listing(model, [token, *tokens[j:]], 0)
        if rest is None:
            return None
        used, produced = rest
        return used + j - i - 1, [*produced, *tokens[i + 1 : j]]
    if token.kind == "listed" or (token.kind == "dim" and token.value == "list_date"):
        j = i + 1
        if kind_at(tokens, j) == "dim" and tokens[j].value == "list_date":
            j += 1
        span = _span(tokens, j)
        if span:  # listed from 2019 through 2023, listed between 2019 and 2023, listed 2019–2023
            return j + span - i, [synthetic("cond", _span_scope(tokens, j, span), tokens[i : j + span])]
        if (
            kind_at(tokens, j) in {"after", "before", "early", "cmp"}
            and kind_at(tokens, j + 1) in PERIOD_KINDS
        ):
            word = tokens[j]
            direction = (
                word.kind
                if word.kind in {"after", "before"}
                else (word.value if word.kind == "early" else ("after" if ">" in word.value else "before"))
            )
            english = word.text.isascii() and word.text != "since"
            scope = _list_date_scope(tokens[j + 1], direction, english=english)
            return j + 2 - i, [synthetic("cond", scope, tokens[i : j + 2])]
        if _two_periods(tokens, j):  # listed in 2019 and 2023
            return j + 3 - i, [synthetic("cond", _either_period(tokens, j), tokens[i : j + 3])]
        if kind_at(tokens, j + 1) == "to" and kind_at(tokens, j + 2) in PERIOD_KINDS:
            return None  # a period, a word of a range, a period: read by the span only
        if kind_at(tokens, j) in PERIOD_KINDS:  # listed in 2020 [or later / or earlier]
            inclusive = kind_at(tokens, j + 1) in {"after", "before"} and tokens[j + 1].text in INCLUSIVE
            direction = tokens[j + 1].kind if inclusive else None
            scope = _list_date_scope(tokens[j], direction, english=False, inclusive=True)
            return j + 1 + inclusive - i, [synthetic("cond", scope, tokens[i : j + 1 + inclusive])]
        # 上市超过5年 / listed for more than 5 years / 上市不满1年
        if (
            kind_at(tokens, j) == "cmp"
            and kind_at(tokens, j + 1) == "number"
            and kind_at(tokens, j + 2) == "tunit"
        ):
            unit = tokens[j + 2].value
            if unit in {"year", "month"}:
                years = tokens[j + 1].value / (12 if unit == "month" else 1)
                scope = Scope("listed_years", op=tokens[j].value, number=years)
                return j + 3 - i, [synthetic("cond", scope, tokens[i : j + 3])]
    return None


def _span(tokens: list[Token], i: int) -> int:
    """How many tokens a span of periods takes at i ([between/from] A to/through/– B; A and B only
    after between: 2019 and 2023 alone are two years), 0 when none is said."""
    k = i + (kind_at(tokens, i) == "between")
    if kind_at(tokens, k) not in PERIOD_KINDS or kind_at(tokens, k + 2) not in PERIOD_KINDS:
        return 0
    if kind_at(tokens, k + 1) != "to" or (tokens[k + 1].text.lower() in ALSO_WORDS and k == i):
        return 0
    return k + 3 - i


def _two_periods(tokens: list[Token], i: int) -> bool:
    """A and B (2019年和2023年, 2019 and 2023), no between before them: two periods, not a span."""
    also = kind_at(tokens, i + 1) == "to" and tokens[i + 1].text.lower() in ALSO_WORDS
    return also and kind_at(tokens, i) in PERIOD_KINDS and kind_at(tokens, i + 2) in PERIOD_KINDS


def _either_period(tokens: list[Token], i: int) -> Condition:
    """Listed in A and B: a company lists once, so the companies listed in either period."""
    return BoolOp("or", tuple(_list_date_scope(tokens[k], None, english=False) for k in (i, i + 2)))


def _span_scope(tokens: list[Token], i: int, span: int) -> Condition:
    """Listed on or after the first period's first day and on or before the last period's last day."""
    first, _ = period_bounds(tokens[i + span - 3])
    _, last = period_bounds(tokens[i + span - 1])
    return BoolOp("and", (Scope("list_date", op=">=", day=first), Scope("list_date", op="<=", day=last)))


def _said_between(tokens: list[Token], j: int) -> bool:
    """A listing-period grouping or a count word, which may stand between 上市/IPO and its period:
    by listing year, said with its words (by, the dimension, a comma after it: IPO count by listing
    year, 2020 onward)."""
    if kind_at(tokens, j) == "groupby" or (kind_at(tokens, j) == "agg" and tokens[j].value == "count"):
        return True
    if kind_at(tokens, j) == "per":
        return kind_at(tokens, j + 1) == "dim" and tokens[j + 1].value in LISTING_PERIODS
    if kind_at(tokens, j) == "dim":
        return tokens[j].value in LISTING_PERIODS and kind_at(tokens, j - 1) == "per"
    grouped = kind_at(tokens, j - 1) == "dim" and tokens[j - 1].value in LISTING_PERIODS
    return grouped and kind_at(tokens, j) == "and" and tokens[j].text in {",", "，"}


def _list_date_scope(
    token: Token, direction: str | None, *, english: bool, inclusive: bool = False
) -> Condition:
    # "listed after 2020" excludes 2020 in English; "2020年以后上市" includes it; "2019年之前上市"
    # excludes 2019 unless said "2019 or earlier"
    first, last = period_bounds(token)
    if direction == "after":
        return Scope("list_date", op=">" if english else ">=", day=last if english else first)
    if direction == "before":
        return Scope("list_date", op="<=", day=last) if inclusive else Scope("list_date", op="<", day=first)
    return BoolOp("and", (Scope("list_date", op=">=", day=first), Scope("list_date", op="<=", day=last)))
