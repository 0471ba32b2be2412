"""Grouping: 各行业 / in each industry / 每只股票 → `groupby`; 超过10只的行业 → a `having` on the count."""

from __future__ import annotations

from backend.domain.language.ir import Compare, Scope, TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.composition import LIST_DIMENSIONS
from backend.domain.language.parser.rewriting import Match, is_plain_number, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

REPORTS_ONLY = frozenset({"latest_report", "annual", "quarter", "half"})  # times naming a report, never days
COUNTS = {"count", "count_move", "having"}  # a count of stocks, or a filter on one
COUNT_FILTERS = {"count", "count_up", "count_down", "net_up", "share"}  # filters on a count of stocks
FLIPPED_OPS = {">": "<", "<": ">", ">=": "<=", "<=": ">="}  # a < b said as b > a
COUNT_ORDERS = [["agg", "count"], ["agg", "count_up"], ["agg", "count_down"]]  # rankings by a count


def _days_of_window(tokens: list[Token], j: int) -> bool:
    """A window of trading days (not one day, nor a report period, which has no days to list)."""
    if kind_at(tokens, j) != "timespec":
        return False
    return not tokens[j].value.is_single_day and tokens[j].value.label not in REPORTS_ONLY


def _latest_report_periods(tokens: list[Token], k: int) -> int | None:
    """近 / last + N + 个报告期 / reporting periods (a whole number of them): the tokens it takes."""
    if (
        kind_at(tokens, k) != "recent"
        or kind_at(tokens, k + 1) != "number"
        or not is_plain_number(tokens[k + 1])
    ):
        return None
    whole = float(tokens[k + 1].value).is_integer() and tokens[k + 1].value >= 1
    if not whole or kind_at(tokens, k + 2) != "tunit" or tokens[k + 2].value != "report":
        return None
    return 3


def group(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    if token.kind == "per" and _days_of_window(tokens, i + 1):
        # for each of the last five trading days: one row per day of the window
        return 2, [tokens[i + 1], synthetic("groupby", "trade_date", [token])]
    reported = kind_at(tokens, i + 1) == "timespec" and tokens[i + 1].value.label in REPORTS_ONLY
    if token.kind == "per" and reported:
        return 2, [tokens[i + 1]]  # 按最新财报 / 按2024年报: the report period the figures are read at
    latest = _latest_report_periods(tokens, i + (token.kind == "per"))
    if latest is not None:  # 近4个报告期的毛利率, for each of the last four reporting periods: one row each
        used = latest + (token.kind == "per")
        spec = TimeSpec("recent_reports", n=int(tokens[i + used - 2].value))
        return used, [
            synthetic("timespec", spec, tokens[i : i + used]),
            synthetic("groupby", "report_period", []),
        ]
    if token.kind == "per" and kind_at(tokens, i + 1) == "tunit" and tokens[i + 1].value == "report":
        # 2025年各报告期营收同比增长超过20%的公司有多少家: one row per report period of the year
        return 2, [synthetic("groupby", "report_period", tokens[i : i + 2])]
    if token.kind == "per" and _period_unit(tokens, i + 1) is not None:
        # 2025年每个月日均成交额 / per year over a window: the window's days grouped by month or year
        return 2, [synthetic("groupby", f"trade_{_period_unit(tokens, i + 1)}", tokens[i : i + 2])]
    if token.kind == "every_period":  # monthly average turnover in 2025
        return 1, [synthetic("groupby", f"trade_{token.value}", [token])]
    if token.kind == "per" and kind_at(tokens, i + 1) == "dim":
        return 2, [synthetic("groupby", tokens[i + 1].value, tokens[i : i + 2])]
    listed = _listed_groups(tokens[:i])
    if (
        token.kind == "per"
        and listed
        and kind_at(tokens, i + 1) == "number"
        and kind_at(tokens, i + 2) == "count_unit"
    ):
        # 主板、创业板…换手率最高的各3只: the first N of each group named
        return 1, [synthetic("groupby", listed, [token])]
    trailing = all(kind_at(tokens, k) == "and" for k in range(i + 1, len(tokens)))
    ranked = any(kind_at(tokens, k) == "orderspec" for k in range(len(tokens)))
    if token.kind == "per" and trailing and ranked and _listed_groups(tokens):
        # for banks, brokers and insurers, the two cheapest by P/B in each: ranked within each one named
        return 1, [synthetic("groupby", _listed_groups(tokens), [token])]
    if token.kind == "per" and kind_at(tokens, i + 1) == "cond" and kind_at(tokens, i + 2) == "dim":
        # in each new-energy industry: the scope stays, the grouping is by industry
        return 3, [tokens[i + 1], synthetic("groupby", tokens[i + 2].value, tokens[i : i + 3])]
    compared = _counts_compared(tokens, i)
    if compared is not None:
        return compared
    count_filter = kind_at(tokens, i + 1) == "number" and kind_at(tokens, i + 2) == "count_unit"
    if token.kind == "cmp" and count_filter and not tokens[i + 1].extra.get("unit"):
        # "only industries with more than 10 such stocks": a filter on the group's count
        condition = Compare("stock_count", token.value, float(tokens[i + 1].value), agg="count")
        if kind_at(tokens, i - 1) == "count_move":  # 上涨家数超过100家: the count of those that rose
            moved = str(tokens[i - 1].value)
            condition = Compare("pct_chg", token.value, float(tokens[i + 1].value), agg=moved)
        return 3, [synthetic("having", condition, tokens[i : i + 3])]
    having = _groups_counting(tokens, i) or _groups_sharing(tokens, i)
    if having is not None:
        return having
    if token.kind == "each_stock":
        return 1, [synthetic("groupby", "ts_code", [token])]
    if _names_days(tokens, i):  # 涨停家数超过25家的交易日 / trading days with …: the days are the rows
        return 1, [synthetic("groupby", "trade_date", [token])]
    if _periods_asked(tokens, i):  # which month of 2025 had the highest average daily turnover
        return 1, [synthetic("groupby", f"trade_{tokens[i].value}", [tokens[i]])]
    if _days_when(tokens, i):  # the days in 2025 when Moutai rose more than 3%: those days are the rows
        return 1, [synthetic("groupby", "trade_date", [token])]
    ranked_days = token.kind == "timespec" and token.value.label == "recent_bars" and token.value.n
    if ranked_days and i > 0 and _ranks_by_count(tokens[i - 1]):
        # 涨停家数最多的5个交易日: the 5 days ranked first, not a window of the last 5 trading days
        days = Token("number", float(token.value.n), token.text, token.start)
        return 1, [synthetic("groupby", "trade_date", [token]), days]
    return _count_of_stocks_meeting(tokens, i)


def _counts_compared(tokens: list[Token], i: int) -> Match | None:
    """上涨家数多于下跌家数 / advancers outnumbered decliners: each row's (day's, group's) advancers against
    its decliners, a `having` on their difference (net_up: advancers − decliners cmp 0); the decliners
    said first turn the comparison round."""
    said = [kind_at(tokens, k) for k in range(i, i + 3)]
    if said != ["count_move", "cmp", "count_move"]:
        return None
    op, pair = str(tokens[i + 1].value), (tokens[i].value, tokens[i + 2].value)
    if op not in FLIPPED_OPS or pair not in {("count_up", "count_down"), ("count_down", "count_up")}:
        return None
    op = FLIPPED_OPS[op] if pair[0] == "count_down" else op
    return 3, [synthetic("having", Compare("pct_chg", op, 0.0, agg="net_up", text="0"), tokens[i : i + 3])]


def _listed_groups(tokens: list[Token]) -> str | None:
    """The dimension of the one scope that names several groups (主板、创业板和科创板), if any."""
    listed = {
        LIST_DIMENSIONS[token.value.kind]
        for token in tokens
        if token.kind == "cond" and isinstance(token.value, Scope) and token.value.kind in LIST_DIMENSIONS
        and len(token.value.values) > 1
    }  # fmt: skip
    return listed.pop() if len(listed) == 1 else None


def _names_days(tokens: list[Token], i: int) -> bool:
    """交易日 / trading days said alone (no count before it: 5个交易日 is a window, read by the time
    pass), with a count of stocks filtered in the question."""
    if kind_at(tokens, i) != "tunit" or tokens[i].value not in {"trading_day", "day"}:
        return False
    if kind_at(tokens, i - 1) == "number":
        return False
    # the pass reads the tokens as they were before it: a count word, a count filter still unread,
    # or a ranking by the count (涨停家数最多的交易日)
    counted = any(token.kind in COUNTS or _ranks_by_count(token) for token in tokens)
    filtered = (_count_of_stocks_meeting, _groups_sharing, _counts_compared)
    return counted or any(read(tokens, k) for read in filtered for k in range(len(tokens)))


def _days_when(tokens: list[Token], i: int) -> bool:
    """days / trading days / sessions (no count before it) [a window] + when / on which + a condition;
    or asked first, with nothing but a window and the stocks before it and the test right after them
    (Which days this month did Moutai close above its 20-day MA?, 本月茅台哪些交易日收盘价高于20日均线:
    'which', 'did', 哪些 are filler; On which days in the last 20 sessions did CATL close below …: the
    days named with their 'when'); or said last, after nothing but a window, the stocks and the test."""
    if i == 0 and kind_at(tokens, i) == "when" and tokens[i].text.endswith("days"):
        return _test_after_stocks(tokens, 1 + (kind_at(tokens, 1) == "timespec"))
    if kind_at(tokens, i) != "tunit" or tokens[i].value not in {"trading_day", "day"}:
        return False
    if kind_at(tokens, i - 1) == "number":
        return False
    j = i + 1 + (kind_at(tokens, i + 1) == "timespec")
    asked_first = all(kind_at(tokens, k) == "timespec" or _is_scope(tokens[k]) for k in range(i))
    if asked_first and _test_after_stocks(tokens, j):
        return True
    if i == len(tokens) - 1 and i > 0:  # 2025年茅台涨幅超过3%的交易日: the days said last, after their test
        said = all(kind_at(tokens, k) in {"timespec", "cond"} for k in range(i))
        return said and any(token.kind == "cond" and not _is_scope(token) for token in tokens[:i])
    return kind_at(tokens, j) == "when" and any(token.kind == "cond" for token in tokens[j + 1 :])


def _periods_asked(tokens: list[Token], i: int) -> bool:
    """month / quarter / year asked first (which month of 2025 had …, 2025年哪个月…最高: 'which' and 哪个
    are filler), within a window of days said right before or after it, the question ranking by an
    aggregate: the window's days grouped by that period, the periods ranked. A count of stocks over a
    month (which month had the most limit-up stocks: the stocks, or their stock-days?) is not read."""
    if _period_unit(tokens, i) is None or kind_at(tokens, i - 1) == "number":
        return False
    if not all(kind_at(tokens, k) == "timespec" or _is_scope(tokens[k]) for k in range(i)):
        return False
    window = _days_of_window(tokens, i - 1) or _days_of_window(tokens, i + 1)
    ranked = any(t.kind == "orderspec" and t.value.metric.split(":")[0] == "agg" for t in tokens)
    counted = any(t.kind == "orderspec" and t.value.metric.startswith("agg:count:") for t in tokens)
    return window and ranked and not counted


def _test_after_stocks(tokens: list[Token], j: int) -> bool:
    """From j: the stocks, then the days' test (a condition) right after them."""
    k = j
    while k < len(tokens) and _is_scope(tokens[k]):
        k += 1
    return kind_at(tokens, k) == "cond"


def _is_scope(token: Token) -> bool:
    return token.kind == "cond" and bool(token.extra.get("scope"))


def _ranks_by_count(token: Token) -> bool:
    """Ranked by a count of stocks: all of them, or those that rose (fell)."""
    return token.kind == "orderspec" and token.value.metric.split(":")[:2] in COUNT_ORDERS


def _count_of_stocks_meeting(tokens: list[Token], i: int) -> Match | None:
    """more than 25 limit-up stocks / more than 25 stocks hitting limit up / more than 60 advancers (in
    a group, on a day): the count of the stocks meeting the condition, filtered."""
    said = (
        kind_at(tokens, i) == "cmp" and kind_at(tokens, i + 1) == "number" and is_plain_number(tokens[i + 1])
    )
    if not said:
        return None
    if kind_at(tokens, i + 2) == "count_move":  # more than 60 advancers: a filter on that count
        moved = Compare("pct_chg", tokens[i].value, float(tokens[i + 1].value), agg=str(tokens[i + 2].value))
        return 3, [tokens[i + 2], synthetic("having", moved, tokens[i : i + 2])]
    if _counted(tokens, i + 2) and kind_at(tokens, i + 3) == "count_unit":
        condition, unit = tokens[i + 2], tokens[i + 3]
    elif kind_at(tokens, i + 2) == "count_unit" and _counted(tokens, i + 3):
        condition, unit = tokens[i + 3], tokens[i + 2]
    else:
        return None
    having = Compare("stock_count", tokens[i].value, float(tokens[i + 1].value), agg="count")
    return 4, [condition, synthetic("count", None, [unit]), synthetic("having", having, tokens[i : i + 2])]


def listing_periods(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """2023年每个月新上市多少只 / number of IPOs per year since 2020: listings grouped by the month or
    year of the listing. The grouping moves after the listing phrase, so that the listing pass still
    reads the period said with it (2023年…上市, listed … since 2020)."""
    if kind_at(tokens, i) == "per" and _period_unit(tokens, i + 1):
        # 每年各有多少家公司上市: 各 and the count said between, the count kept after the grouping
        each = kind_at(tokens, i + 2) == "per" and tokens[i + 2].text == "各"
        counted = kind_at(tokens, i + 2 + each) == "agg" and tokens[i + 2 + each].value == "count"
        listed = i + 2 + each + counted
        if kind_at(tokens, listed) == "listed":
            by = synthetic("groupby", f"list_{_period_unit(tokens, i + 1)}", tokens[i : i + 2 + each])
            return listed + 1 - i, [tokens[listed], by, *tokens[listed - counted : listed]]
    # monthly IPO count, monthly count of new listings (the count word said between)
    counted = kind_at(tokens, i + 1) == "agg" and tokens[i + 1].value == "count"
    if kind_at(tokens, i) == "every_period" and kind_at(tokens, i + 1 + counted) == "listed":
        by = synthetic("groupby", f"list_{tokens[i].value}", [tokens[i]])
        return 2 + counted, [*tokens[i + 1 : i + 2 + counted], by]
    per = kind_at(tokens, i + 1) == "per" and _period_unit(tokens, i + 2) is not None
    if kind_at(tokens, i) == "listed" and (per or kind_at(tokens, i + 1) == "every_period"):
        used = 2 if per else 1
        unit = _period_unit(tokens, i + 2) if per else str(tokens[i + 1].value)
        by = synthetic("groupby", f"list_{unit}", tokens[i + 1 : i + 1 + used])
        j = i + 1 + used
        said_with = 2 if kind_at(tokens, j) in {"after", "before", "cmp"} else 0
        if said_with and kind_at(tokens, j + 1) in {"year", "month", "date"}:  # per year since 2020
            return 1 + used + said_with, [tokens[i], *tokens[j : j + said_with], by]
        return 1 + used, [tokens[i], by]
    return None


def _period_unit(tokens: list[Token], i: int) -> str | None:
    """'month', 'quarter' or 'year' for such a unit word (每个月, per quarter), else None."""
    if kind_at(tokens, i) == "tunit" and tokens[i].value in {"month", "quarter", "year"}:
        return str(tokens[i].value)
    return None


def _groups_counting(tokens: list[Token], i: int) -> Match | None:
    """[only] industries with at least 10 [listed companies]: a filter on the group's count of stocks
    (the dimension word stays, to name the grouping)."""
    j = i + (kind_at(tokens, i) in {"only", "among"})
    if kind_at(tokens, j) != "dim":
        return None
    k = j + 1 + (kind_at(tokens, j + 1) == "and")  # with
    if (
        kind_at(tokens, k) != "cmp"
        or kind_at(tokens, k + 1) != "number"
        or not is_plain_number(tokens[k + 1])
    ):
        return None
    end = k + 2
    while kind_at(tokens, end) in {"listed", "count_unit"}:
        end += 1
    if end == k + 2 and end < len(tokens):
        return None  # a bare number with words after it may be anything: only a count said as such
    condition = Compare("stock_count", tokens[k].value, float(tokens[k + 1].value), agg="count")
    return end - i, [tokens[j], synthetic("having", condition, tokens[i:end])]


def _groups_sharing(tokens: list[Token], i: int) -> Match | None:
    """A filter on the share of a group's stocks meeting a condition: industries where more than
    70% of stocks closed higher (cmp N% [stocks | the market] `cond`: days with more than half the
    market closing up), 上涨股票占比超过70%的行业 (`cond` 占比 cmp N%), 上涨家数占比超过七成."""
    if kind_at(tokens, i) == "cmp" and _share_said(tokens, i + 1) is not None:
        j = i + 2 + (kind_at(tokens, i + 2) == "count_unit" or _names_market(tokens, i + 2))
        if _counted(tokens, j):
            share = Compare("stock_share", tokens[i].value, _share_said(tokens, i + 1) or 0.0, agg="share",
                            where=tokens[j].value, text=tokens[i + 1].text)  # fmt: skip
            return j + 1 - i, [synthetic("having", share, tokens[i : j + 1])]
    moved = kind_at(tokens, i) == "count_move" and tokens[i].value in {"count_up", "count_down"}
    if _counted(tokens, i) or moved:
        j = i + 1 + (kind_at(tokens, i + 1) == "count_unit")
        if kind_at(tokens, j) == "share" and kind_at(tokens, j + 1) == "cmp" and _is_percent(tokens, j + 2):
            where = tokens[i].value if tokens[i].kind == "cond" else _moved(tokens[i])
            share = Compare("stock_share", tokens[j + 1].value, float(tokens[j + 2].value), agg="share",
                            where=where, text=tokens[j + 2].text)  # fmt: skip
            return j + 3 - i, [synthetic("having", share, tokens[i : j + 3])]
    return None


def _names_market(tokens: list[Token], i: int) -> bool:
    """the market said of the stocks counted on a day (half the market): all the day's stocks; said of
    a group of stocks (industries where half the market rose) it is not the group's own, left unread."""
    grouped = any(t.kind == "dim" or (t.kind == "groupby" and t.value != "trade_date") for t in tokens)
    return kind_at(tokens, i) == "benchmark" and tokens[i].value == "market" and not grouped


def _share_said(tokens: list[Token], i: int) -> float | None:
    """The share a phrase names, in %: 70%, 七成, half of (50)."""
    if _is_percent(tokens, i):
        return float(tokens[i].value)
    if kind_at(tokens, i) == "fraction":
        return 100 * float(tokens[i].value)
    return None


def _is_percent(tokens: list[Token], i: int) -> bool:
    return kind_at(tokens, i) == "number" and tokens[i].extra.get("unit") == "percent"


def _counted(tokens: list[Token], i: int) -> bool:
    """A condition on the stocks (an entity scope names the group, it is not counted)."""
    return kind_at(tokens, i) == "cond" and not tokens[i].extra.get("scope")


def _moved(token: Token) -> Compare:
    """上涨家数 / 下跌家数: the stocks that closed up / down."""
    return Compare("pct_chg", ">" if token.value == "count_up" else "<", 0.0, text="0")


GROUP_COUNT_WORDS = ("个", "天", "几")  # 行业有几个 / 交易日有多少天: a count of the groups, not of stocks


def count_of_groups(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """how many industries have an average P/E above 30 / number of trading days in 2025 with more than
    25 limit-up stocks / 平均市盈率超过30的行业有几个: how many groups (days) the grouping gives, not the
    stocks of each (`count` with `groups`: the rows of the grouped query, counted)."""
    token = tokens[i]
    if token.kind == "count" and token.extra.get("where") is None:
        if kind_at(tokens, i + 1) == "dim" and not token.extra.get("days"):  # how many industries …
            return 1, [_groups_counted(token)]
        counted_days = token.extra.get("days") and not any(t.kind == "groupby" for t in tokens)
        if counted_days and any(_filters_a_count(t) for t in tokens):  # number of trading days with …
            return 1, [synthetic("groupby", "trade_date", [token]), _groups_counted(token)]
        return None
    days = token.kind == "groupby" and token.value == "trade_date"
    after = tokens[i + 1] if (token.kind == "dim" or days) and kind_at(tokens, i + 1) == "count" else None
    # 交易日有几天: the days counted are the grouped days themselves (an industry's days are not)
    if after is None or after.extra.get("where") is not None or (after.extra.get("days") and not days):
        return None
    if after.text.isascii() or not after.text.endswith(GROUP_COUNT_WORDS):
        return None
    return 2, [token, _groups_counted(after)]


def _groups_counted(token: Token) -> Token:
    return synthetic("count", None, [token], groups=True)


def _filters_a_count(token: Token) -> bool:
    """A filter on how many stocks of a group (a day) meet a condition: more than 25 limit-up stocks,
    more decliners than advancers, more than half of them up."""
    return token.kind == "having" and token.value.agg in COUNT_FILTERS
