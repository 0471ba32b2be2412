"""Orderings and top-k: 收盘价最高, 涨幅前10, top 5 by market cap, biggest losers → `orderspec`.

An `orderspec` carries its limit (最高 = 1, 前10 = 10) in `extra["limit"]`.
"""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.ir import REPORT_TIME_LABELS, Compare, Order, Scope, TimeSpec
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at, metric_of, synthetic
from backend.domain.language.semantic import SemanticModel

COUNT_SUPERLATIVES = {"most", "fewest", "最多", "最少"}  # words that rank by how many
# conditions said as a noun for the stocks themselves (the most loss-makers: the companies counted)
STOCK_NAMING_CONDITIONS = {"loss makers", "loss maker", "loss-makers", "loss-maker", "money-losing companies",
                           "亏损股", "亏损公司"}  # fmt: skip
COUNTED_MOVES = {"count_up", "count_down"}  # the advancers, the decliners
FLIPPED_ORDER = {"desc": "asc", "asc": "desc"}
ORDERABLE = {"metric", "aggmetric", "change_word", "report_figure", "count"}
GROWTH_RATES = {"netprofit_yoy", "or_yoy"}  # stored growth rates a direction word is said of
# a word for the ranked stocks that says no direction of its own: the superlative before it does
NEUTRAL_PERFORMERS = {"performers"}
# Chinese per words before a figure ask for each one's figure (各成交额), never a ranking by it (按净利率)
EACH_ONES = {"各", "各个", "每", "每个"}
DAY_COUNT_ORDER = "agg:trading_days:"  # stocks ranked by their count of days (aggregates.py)
CLAUSE_BREAKS = {",", "，", ";", "；"}
# superlatives of a price (便宜 / 贵): said only of a valuation multiple or a price
PRICE_SUPERLATIVES = {"最便宜", "最贵", "cheapest", "least expensive", "most expensive", "priciest"}


def growth_basis_said_again(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """sorted by that growth / 按增速排序: the growth rate compared before is the basis, the one rate of
    the question (two rates compared, or none: which growth? left to refuse)."""
    english = tokens[i].kind == "order" and tokens[i].text.endswith(" by")
    if not (english or (tokens[i].kind == "per" and tokens[i].text == "按")):
        return None
    said = tokens[i + 1] if i + 1 < len(tokens) else None
    if said is None or not (said.kind == "growth_rate" or (said.kind == "up" and said.text == "growth")):
        return None
    rates = {
        token.value.metric
        for token in tokens[:i]
        if token.kind == "cond" and isinstance(token.value, Compare) and token.value.metric in GROWTH_RATES
    }
    if len(rates) != 1:
        return None
    return 2, [tokens[i], Token("metric", rates.pop(), said.text, said.start)]


def ordering(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    if tokens[i].kind == "per" and kind_at(tokens, i + 1) == "dir":  # 按从高到低排列
        return 2, [synthetic("dir", tokens[i + 1].value, tokens[i : i + 2])]
    stock_days = _stock_days_ranked(tokens, i)
    if stock_days is not None:
        return stock_days
    if tokens[i].kind == "count" and tokens[i].extra.get("where") is not None:
        return _day_count_then_rank(model, tokens, i)
    if tokens[i].kind in ORDERABLE:
        return _metric_then_rank(model, tokens, i) or _ranked_in_next_clause(model, tokens, i)
    if tokens[i].kind == "most_stocks":  # 哪个行业涨停的股票最多: the conditions before it stay conditions
        if tokens[i].text.startswith(("成分", "成份")) and not _index_named(tokens[:i]):
            return None  # 成分股最多 counts the members of an index the question names: none here
        return 1, [synthetic("orderspec", Order("agg:count:", str(tokens[i].value)), [tokens[i]], limit=1)]
    if _group_with_most(tokens, i):  # 亏损的公司，哪3个行业最多: the groups ranked by their count
        said = kind_at(tokens, i - 2) == "number" or kind_at(tokens, i - 3) == "number"  # 哪3个行业
        order = Order("agg:count:", str(tokens[i].value))
        return 1, [synthetic("orderspec", order, [tokens[i]], limit=None if said else 1)]
    ranked_by_moves = _moves_then_rank(tokens, i)
    if ranked_by_moves is not None:
        return ranked_by_moves
    if _bare_move(tokens[i]) and kind_at(tokens, i + 1) == "super":
        return _move_then_rank(model, tokens, i)
    if tokens[i].kind == "share" and kind_at(tokens, i + 1) == "super":  # 破净股占比最高的3个行业
        return 2, [tokens[i], _share_order(tokens[i + 1])]
    if _ranks_share(tokens, i):
        # the highest share of stocks below book value / ranked by the share of …: the groups ranked
        # by that share, the share itself kept to be read (and shown) as an aggregate
        return 1, [_share_order(tokens[i])]
    if tokens[i].kind in {"super", "top", "bottom", "order", "per", "gainers"}:
        return _rank_then_metric(model, tokens, i)
    return None


def _share_order(ranking: Token) -> Token:
    """Groups ordered by the share of their stocks; a superlative picks the first one unless a
    number asks for more (the highest share: 1, the 3 industries with the highest share: 3)."""
    superlative = ranking.kind == "super"
    direction = str(ranking.value) if superlative else "desc"
    limit = 1 if superlative else None
    return synthetic("orderspec", Order("agg:share:", direction), [ranking], limit=limit)


def _ranks_share(tokens: list[Token], i: int) -> bool:
    """A superlative or 'ranked by' right before a share of the stocks."""
    return kind_at(tokens, i + 1) == "share" and (
        tokens[i].kind == "super" or (tokens[i].kind == "order" and tokens[i].text.endswith(" by"))
    )


def _day_count_then_rank(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """近20个交易日涨停次数最多的10只 / 上涨天数最多: the stocks ranked by how many days of the window
    their condition held on (the count stays shown). A count of the stocks where a condition holds
    ranks no stocks, and over groups (涨停次数最多的行业: days, or stock-days?) it is not read either: left
    unread, refused."""
    if not tokens[i].extra.get("days") or any(token.kind in {"dim", "groupby"} for token in tokens):
        return None
    ranked = _metric_then_rank(model, tokens, i)
    if ranked is None:
        return None
    used, [order, *times] = ranked
    by_days = replace(order.value, metric=DAY_COUNT_ORDER)
    return used, [tokens[i], synthetic("orderspec", by_days, tokens[i : i + used], **order.extra), *times]


def _stock_days_ranked(tokens: list[Token], i: int) -> Match | None:
    """哪个行业涨停家次最多 / the industry with the most limit-up stock-days: the groups ranked by their
    count of stock-day bars meeting the condition, the first unless a number asks for more."""
    if kind_at(tokens, i) == "super" and kind_at(tokens, i + 1) == "count":
        count, superlative = tokens[i + 1], tokens[i]
    elif kind_at(tokens, i) == "count" and kind_at(tokens, i + 1) == "super":
        count, superlative = tokens[i], tokens[i + 1]
    else:
        return None
    grouped = any(token.kind in {"dim", "groupby"} for token in tokens)
    if not count.extra.get("stock_days") or superlative.text not in COUNT_SUPERLATIVES or not grouped:
        return None
    said = any(kind_at(tokens, k) == "number" for k in range(max(0, i - 3), i))  # 哪3个行业
    order = Order("agg:stock_days:", str(superlative.value))
    return 2, [count, synthetic("orderspec", order, [superlative], limit=None if said else 1)]


def _moves_then_rank(tokens: list[Token], i: int) -> Match | None:
    """下跌家数最多 / the most decliners / 上涨家数最少: the rows (days, groups) ranked by how many of their
    stocks rose (fell), the first one unless a number asks for more; the count stays, to be shown."""
    moves, superlative = tokens[i], tokens[i + 1] if i + 1 < len(tokens) else None
    if kind_at(tokens, i) == "super" and kind_at(tokens, i + 1) == "count_move":
        moves, superlative = tokens[i + 1], tokens[i]
    elif kind_at(tokens, i) != "count_move" or kind_at(tokens, i + 1) != "super":
        return None
    if superlative is None or superlative.text not in COUNT_SUPERLATIVES or moves.value not in COUNTED_MOVES:
        return None
    order = Order(f"agg:{moves.value}:pct_chg", str(superlative.value))
    said = 2 + _how_many_again(tokens, i + 2)  # …, and how many: that count, shown already
    return said, [moves, synthetic("orderspec", order, [superlative, *tokens[i + 2 : i + said]], limit=1)]


def _how_many_again(tokens: list[Token], j: int) -> int:
    """[,] [and] how many ending the question, right after a ranking by a count: the count ranked on,
    asked again (how many tokens it takes; 0 when something else follows)."""
    k = j
    while kind_at(tokens, k) in {"and", "to"}:
        k += 1
    bare = kind_at(tokens, k) == "count" and tokens[k].extra.get("where") is None and not tokens[k].extra
    return k + 1 - j if bare and k == len(tokens) - 1 else 0


def _bare_move(token: Token) -> bool:
    """涨 / 跌 / rose / fell with no size: the sign of the day's or window's change; 营收同比增长 /
    净利润同比下降 with no size: the sign of a growth rate (增长最快的10家: ranked by that rate)."""
    move = token.value
    plain = isinstance(move, Compare) and move.other is None and move.agg is None
    moved = plain and (move.metric == "pct_chg" or move.metric in GROWTH_RATES)
    return token.kind == "cond" and moved and move.value == 0 and move.op in "<>"


def _move_then_rank(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """本月以来跌得最多的10只 / rose the most this year: ranked by the change over the move's own window
    (the largest fall first for 跌); the move's sign is no filter of its own."""
    move = tokens[i].value
    gain = Token("metric", move.metric, tokens[i].text, tokens[i].start, {"time": move.time})
    ranked = _metric_then_rank(model, [gain, *tokens[i + 1 :]], 0)
    if ranked is None:
        return None
    used, [order, *times] = ranked
    if move.op == "<":  # 跌得最多: the most negative change first
        order = synthetic("orderspec", replace(order.value, direction=FLIPPED_ORDER[order.value.direction]),
                          tokens[i : i + used], limit=order.extra.get("limit"),
                          said_direction=order.extra.get("said_direction"))  # fmt: skip
    return used, [order, *times]


def _metric_then_rank(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """metric [time] super|top N|order [dir]: 收盘价最高, 涨幅排名前10."""
    token = tokens[i]
    j = i + 1
    time = token.extra.get("time")
    while kind_at(tokens, j) in {"timespec", "order"}:
        if tokens[j].kind == "timespec":
            time = tokens[j].value
        j += 1
    direction: str | None = None
    said = True  # the direction said in words (最高, 前10, 从低到高), not only the ranking (排名)
    limit: int | None = None
    if kind_at(tokens, j) == "super":
        if _names_its_own_subject(tokens, j, time):
            return None
        direction = tokens[j].value
        limit = 1
        j += 1
    elif kind_at(tokens, j) in {"top", "bottom"} and kind_at(tokens, j + 1) == "number":
        ranked_by = j + 2 + (kind_at(tokens, j + 2) == "count_unit")
        if kind_at(tokens, ranked_by) in {"per", "order"} and kind_at(tokens, ranked_by + 1) in ORDERABLE:
            return None  # average P/E of the top 20 stocks by trading value: ranked by the later metric
        direction = "desc" if tokens[j].kind == "top" else "asc"
        limit = int(tokens[j + 1].value)
        j += 2
    elif kind_at(tokens, j) == "dir":
        direction = tokens[j].value
        j += 1
    elif tokens[j - 1].kind == "order":
        direction, said = "desc", False
    if direction is None:
        return None
    if kind_at(tokens, j) == "order":
        j += 1
    limit, j = _limit_after(tokens, j, limit)
    order = _order_token(model, token, direction, limit, time, tokens[i:j], said=said)
    return j - i, [order, *_times_left_out(order, tokens[i:j])]


# the ranked groups said with the superlative of the next clause (最便宜的5个行业, 哪5个行业最便宜)
RANKED_NAMED = {"number", "count_unit", "dim"}


def _ranked_in_next_clause(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """各行业平均PE TTM（剔除亏损股），最便宜的5个行业 / 哪5个行业最便宜: a superlative opening (or, after the
    groups it ranks, closing) the next clause with no measure of its own ranks by the one measure the
    question named before it (its conditions in between stay). 便宜 / 贵 (cheapest, priciest) rank only a
    valuation multiple or a price: of any other measure they say nothing."""
    j = i + 1
    while kind_at(tokens, j) in {"cond", "not", "and"}:
        j += 1
    if tokens[j - 1].text not in CLAUSE_BREAKS:
        return None
    # 最便宜的5个行业, or the groups named first: 哪5个行业最便宜 (哪 is filler)
    s = j
    while kind_at(tokens, s) in RANKED_NAMED:
        s += 1
    superlative = tokens[s] if kind_at(tokens, s) == "super" else None
    if superlative is None or superlative.text in COUNT_SUPERLATIVES:
        return None
    k = s + 1
    while s == j and kind_at(tokens, k) in RANKED_NAMED:
        k += 1
    if not _ends_phrase(tokens, k) or sum(token.kind in ORDERABLE for token in tokens) != 1:
        return None
    if superlative.text in PRICE_SUPERLATIVES and not _priced(model, tokens[i]):
        return None
    order = _order_token(model, tokens[i], str(superlative.value), 1, None, [tokens[i], superlative])
    return s + 1 - i, [order, *_times_left_out(order, [tokens[i]]), *tokens[i + 1 : j], *tokens[j:s]]


def _priced(model: SemanticModel, token: Token) -> bool:
    """A valuation multiple (市盈率, P/B) or a price: what cheap and expensive can be said of."""
    key = token.value[1] if token.kind == "aggmetric" else metric_of(token)
    metric = model.metrics.get(str(key))
    return metric is not None and (metric.input_unit.name == "倍" or metric.key == "close")


def _names_its_own_subject(tokens: list[Token], j: int, day: TimeSpec | None) -> bool:
    """traded the largest amount: an English superlative ranks by the measure after it; volume today was
    the highest of the last 120 days: a window after the measure's own day is the stock's history (its
    N-day high), never a ranking of the stocks (left unread, refused)."""
    after = kind_at(tokens, j + 1)
    if after == "timespec":
        return day is not None and day.is_single_day and not tokens[j + 1].value.is_single_day
    return after in ORDERABLE and tokens[j].text.isascii()


def _metric_follows(tokens: list[Token], j: int) -> bool:
    """按净利率 / 按2024年报净利率: what 按 ranks by, its report period possibly said first."""
    return kind_at(tokens, j) in ORDERABLE or (
        kind_at(tokens, j) == "timespec" and kind_at(tokens, j + 1) in ORDERABLE
    )


def _limit_after(tokens: list[Token], j: int, limit: int | None) -> tuple[int | None, int]:
    """涨幅排名前10 / 从高到低前10 / 从高到低排，前10家: the limit said after the ranking."""
    k = j + (kind_at(tokens, j) == "and" and tokens[j].text in {",", "，"})
    if kind_at(tokens, k) in {"top", "bottom"} and kind_at(tokens, k + 1) == "number":
        return int(tokens[k + 1].value), k + 2
    return limit, j


def _rank_then_metric(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """super|top N [by] metric: 最高的收盘价, top 5 by market cap, 按涨幅排序, 涨幅榜."""
    token = tokens[i]
    j = i
    ranked_dimension: Token | None = None
    direction = None
    said = True  # as in _metric_then_rank: 按涨幅排序 says no direction of its own
    limit = None
    if token.kind == "super":
        direction, limit = token.value, 1
        j += 1
        if kind_at(tokens, j) == "number":
            limit = int(tokens[j].value)
            j += 1
    elif token.kind in {"top", "bottom"} and kind_at(tokens, j + 1) == "number":
        direction = "desc" if token.kind == "top" else "asc"
        limit = int(tokens[j + 1].value)
        j += 2
        if kind_at(tokens, j) == "dim" and kind_at(tokens, j + 1) in {"per", "order"}:
            ranked_dimension = tokens[j]  # the top 3 industries by total market cap: groups ranked
            j += 1
        elif _ends_phrase(tokens, j):  # 按省份统计公司数量，取前10 / …, top 10: the figure asked, ranked
            return j - i, [synthetic("dir", direction, tokens[i:j]), tokens[i + 1]]
        elif kind_at(tokens, j) == "dim" and _ends_phrase(tokens, j + 1):
            # …by industry, top 10 industries: the groups' figure asked, ranked (the dimension kept)
            return j - i, [synthetic("dir", direction, tokens[i:j]), tokens[i + 1]]
        if kind_at(tokens, j) == "super":
            direction = tokens[j].value
            j += 1
            if _ends_phrase(tokens, j):  # …, top 10 highest: the figure asked, ranked that way
                return j - i, [synthetic("dir", direction, tokens[i:j]), tokens[i + 1]]
    elif token.kind == "order" or (
        token.kind == "per" and token.text not in EACH_ONES and _metric_follows(tokens, i + 1)
    ):
        j += 1
        direction, said = "desc", False
        if token.kind == "order" and kind_at(tokens, j) == "dim":
            ranked_dimension = tokens[j]  # "Rank industries by …": the industries are the groups
            j += 1
    elif token.kind == "gainers":
        gain = Token("metric", "pct_chg", token.text, token.start)
        return 1, [_order_token(model, gain, token.value, None, None, [token])]
    if direction is None:
        return None
    most = _most_stocks(tokens, i)
    if most is not None:
        return most
    skipped: list[Token] = []  # "the 5 largest CSI 300 constituents by market cap": the scope stays
    skipped_adjective = _names_the_ranked(tokens, j) and _ranked_by_after(tokens, j + 1)
    while _names_the_ranked(tokens, j):
        # 5 biggest companies registered in Zhejiang by market cap: the scope stays; the superlative's
        # own adjective (the most profitable companies by net profit) says only what is ranked
        if tokens[j].kind == "cond" and tokens[j].extra.get("scope"):
            skipped.append(tokens[j])
        j += 1
    window = None  # the top 5 YTD performers: gainers over that window
    if kind_at(tokens, j) == "timespec" and kind_at(tokens, j + 1) == "gainers":
        window = tokens[j].value
        j += 1
    if kind_at(tokens, j) == "gainers":
        direction = tokens[j].value if token.kind != "bottom" else "asc"
        if token.kind == "super":  # biggest losers = the largest declines; worst performers: the lowest
            direction = token.value if tokens[j].text in NEUTRAL_PERFORMERS else tokens[j].value
        metric_token = Token("metric", "pct_chg", tokens[j].text, tokens[j].start)
        order = _order_token(model, metric_token, direction, limit, window, tokens[i : j + 1])
        return j + 1 - i, [*skipped, order]  # top 10 STAR Market gainers: the board stays
    time = None
    if skipped_adjective and kind_at(tokens, j) == "timespec":
        time = tokens[j].value  # the 10 most profitable companies of FY2024 by net profit
        j += 1
    if kind_at(tokens, j) in {"per", "order"} and kind_at(tokens, j + 1) in ORDERABLE:
        j += 1
    elif kind_at(tokens, j) in {"per", "order"} and kind_at(tokens, j + 1) == "timespec":
        j += kind_at(tokens, j + 2) in ORDERABLE  # top 10 by Q3 2025 standalone revenue
    if time is None and kind_at(tokens, j) == "timespec":
        time = tokens[j].value
        j += 1
    if kind_at(tokens, j) not in ORDERABLE:
        return None
    if tokens[j].kind == "count" and token.kind == "per" and kind_at(tokens, j + 1) not in {"dir", "order"}:
        return None  # 各有多少只 asks for a count per group; 按数量从多到少排 ranks by it
    if tokens[j].kind == "count" and tokens[j].extra.get("where") is not None:
        return None  # as above: ranked by a count of a condition
    metric_token = tokens[j]
    j += 1
    if kind_at(tokens, j) == "timespec" and not tokens[j].value.is_single_day:
        time = tokens[j].value  # "gain over the last 20 days"; a single day stays the question's day
        j += 1
    if kind_at(tokens, j) == "dir":
        direction, said = tokens[j].value, True
        j += 1
    if kind_at(tokens, j) == "order":
        j += 1
    limit, j = _limit_after(tokens, j, limit)
    order = _order_token(model, metric_token, direction, limit, time, tokens[i:j], said=said)
    produced = [*skipped, order, *_times_left_out(order, tokens[i:j])]
    return j - i, produced if ranked_dimension is None else [*produced, ranked_dimension]


def _times_left_out(order: Token, used: list[Token]) -> list[Token]:
    """Rank industries by average ROE in 2024: a report period read with the ranked measure that the
    ranking does not keep (a group's aggregate is read at the question's time) stays a time of the
    question, never dropped: said apart, or inside the aggregate's words (by combined FY2024 revenue).
    (A day-count word such as one-day gain names the daily change itself.)"""
    kept = order.value.time
    apart = [token for token in used if token.kind == "timespec" and token.value.label in REPORT_TIME_LABELS]
    # an aggregate's own time (合计 2024年 营收, combined June 30 market cap): any day or period
    own = [
        synthetic("timespec", token.extra["time"], [token])
        for token in used
        if token.kind == "aggmetric" and token.extra.get("time") is not None
    ]
    return [token for token in [*apart, *own] if token.value != kept]


def _index_named(tokens: list[Token]) -> bool:
    """An index scope among the tokens (沪深300成分股…): what a count of constituents counts."""
    return any(isinstance(token.value, Scope) and token.value.kind == "index" for token in tokens)


def _group_with_most(tokens: list[Token], i: int) -> bool:
    """dimension + 最多/最少 ending its clause, after the stocks were described (亏损的公司，哪个行业最多):
    the most of those stocks, never of a figure (nothing ranked follows)."""
    counting = tokens[i].kind == "super" and tokens[i].text in COUNT_SUPERLATIVES
    if not counting or kind_at(tokens, i - 1) != "dim":
        return False
    described = any(token.kind == "cond" and not token.extra.get("scope") for token in tokens[:i])
    return described and _ends_phrase(tokens, i + 1)


def _most_stocks(tokens: list[Token], i: int) -> Match | None:
    """which board had the most limit-up stocks / the region with the most listed companies: the
    groups ranked by their count of the stocks described (the description stays a condition)."""
    if tokens[i].kind != "super" or tokens[i].text not in COUNT_SUPERLATIVES:
        return None
    j = i + 1
    while kind_at(tokens, j) in {"cond", "listed"}:
        j += 1
    named = j > i + 1 and kind_at(tokens, j - 1) == "cond" and tokens[j - 1].text in STOCK_NAMING_CONDITIONS
    counted = kind_at(tokens, j) == "count_unit"
    if not (counted or named) or kind_at(tokens, j + counted) in ORDERABLE or _ranked_by_after(tokens, j):
        return None
    end = j + counted
    order = synthetic("orderspec", Order("agg:count:", str(tokens[i].value)), tokens[i:end], limit=1)
    return end - i, [*tokens[i + 1 : j], order]


def _ends_phrase(tokens: list[Token], j: int) -> bool:
    """Nothing ranked follows: the question or its clause ends (a comma, 的股票 dropped as filler)."""
    return j >= len(tokens) or (kind_at(tokens, j) == "and" and tokens[j].text in {",", "，", ";", "；"})


def _ranked_by_after(tokens: list[Token], j: int) -> bool:
    """Words for the stocks (companies, banks), [a period,] then by + [a period] + a measure (the 10
    most profitable companies of FY2024 by net profit): ranked by that measure, never by a count."""
    k = j
    while kind_at(tokens, k) == "count_unit" or _scoped(tokens, k):
        k += 1  # companies, banks, CSI 300 names
    k += kind_at(tokens, k) == "timespec"
    if k == j or kind_at(tokens, k) not in {"per", "order"}:
        return False
    k += 1 + (kind_at(tokens, k + 1) == "timespec")
    return kind_at(tokens, k) in ORDERABLE - {"count"}


def _scoped(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) == "cond" and bool(tokens[j].extra.get("scope"))


def _names_the_ranked(tokens: list[Token], j: int) -> bool:
    """An entity scope or a word for stocks between a superlative and its measure; the superlative's
    adjective when by + the measure follows the stocks (most profitable companies by net profit)."""
    described = kind_at(tokens, j) == "cond" and _ranked_by_after(tokens, j + 1)
    return _scoped(tokens, j) or described or kind_at(tokens, j) == "count_unit"


def _order_token(
    model: SemanticModel,
    metric_token: Token,
    direction: str,
    limit: int | None,
    time: TimeSpec | None,
    source: list[Token],
    said: bool = True,
) -> Token:
    """The ranking's orderspec; `said_direction` keeps the direction as the words said it of the figure
    named (跌幅最大: desc, though pct_chg is ranked lowest first), None when only the ranking was said
    (按涨幅排名): a direction said after it (，从低到高) is read against it in assembly."""
    order = _ranking_order(model, metric_token, direction, time)
    return synthetic("orderspec", order, source, limit=limit, said_direction=direction if said else None)


def _ranking_order(model: SemanticModel, metric_token: Token, direction: str, time: TimeSpec | None) -> Order:
    if metric_token.kind == "count":  # 上市公司数量最多的地区: the groups ranked by their count of stocks
        return Order("agg:count:", direction)
    if metric_token.kind == "aggmetric":
        fn, metric_key = metric_token.value
        if (
            model.metrics[metric_key].negated and fn in ORDER_REVERSING
        ):  # 平均跌幅最大: the lowest average change
            direction = "asc" if direction == "desc" else "desc"
            metric_key = model.metrics[metric_key].column
        time = time or metric_token.extra.get("time")
        if time is not None and not time.is_single_day and model.metrics[metric_key].kind == "daily":
            # 近20日日均成交额最大: each stock's own average over the window
            return Order(metric_key, direction, time=time, agg=fn)
        return Order(f"agg:{fn}:{metric_key}", direction)
    metric_key = metric_of(metric_token)
    if metric_token.kind == "report_figure":  # TTM净利润最高: ranked by the derived figure
        return Order(metric_key, direction, time=time, agg=metric_token.extra["window"])
    metric = model.metrics[metric_key]
    if metric.negated:  # 跌幅最大 = the lowest pct_chg
        return Order(metric.column, "asc" if direction == "desc" else "desc", time=time)
    return Order(metric_key, direction, time=time)


# aggregates of a negated figure (跌幅 = −change) that rank the figure itself the other way round
ORDER_REVERSING = {"avg", "sum", "median"}


COMPARATIVE_MOVES = {"higher": "desc", "lower": "asc"}  # `up` / `down` words that compare two things


def which_of_named(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """Gree or Midea - which one has the higher P/B / 格力和美的哪个市净率更高: the stocks named in one
    list ranked by the figure, the first one (which one: the number 'one' said). Said of anything but
    a list of named stocks, the comparative is left to the passes that read a move or a comparison."""
    if not _names_several_stocks(tokens):
        return None
    j = i + (kind_at(tokens, i) == "number" and tokens[i].text.lower() == "one")
    direction = _comparative(tokens, j)
    if _price_word_of_other(model, tokens, j, j + 1) or _price_word_of_other(model, tokens, i + 1, i):
        return None  # cheaper on dividend yield: cheap is a high yield, not the lower figure — left to refuse
    if direction is not None and kind_at(tokens, j + 1) == "metric":  # the higher P/B
        order = Order(metric_of(tokens[j + 1]), direction)
        return j + 2 - i, [synthetic("orderspec", order, tokens[i : j + 2], limit=1)]
    after = _comparative(tokens, i + 1)
    if kind_at(tokens, i) == "metric" and after is not None:  # 市净率更高
        order = Order(metric_of(tokens[i]), after)
        return 2, [synthetic("orderspec", order, tokens[i : i + 2], limit=1)]
    return None


# comparatives of price (cheaper, 更贵): they rank only a price or a valuation multiple, lower = cheaper
PRICE_COMPARATIVES = {"cheaper", "更便宜", "更贵", "more expensive", "pricier", "dearer"}


def _price_word_of_other(model: SemanticModel, tokens: list[Token], word: int, figure: int) -> bool:
    """A comparative of price said of a figure that is neither a price nor a multiple of one."""
    if kind_at(tokens, word) != "higher_of" or tokens[word].text.lower() not in PRICE_COMPARATIVES:
        return False
    if kind_at(tokens, figure) != "metric":
        return False
    metric = model.metrics.get(str(tokens[figure].value))
    return metric is None or (metric.key != "close" and metric.input_unit.name != "倍")


def _comparative(tokens: list[Token], j: int) -> str | None:
    """desc / asc for a comparative word (更高, larger; higher and lower, which are read as moves)."""
    if kind_at(tokens, j) == "higher_of":
        return str(tokens[j].value)
    if kind_at(tokens, j) in {"up", "down"}:
        return COMPARATIVE_MOVES.get(tokens[j].text.lower())
    return None


def _names_several_stocks(tokens: list[Token]) -> bool:
    """One list of named stocks (Gree or Midea, 格力和美的), and no other entity scope."""
    scopes = [
        t.value for t in tokens if t.kind == "cond" and t.extra.get("scope") and isinstance(t.value, Scope)
    ]
    return len(scopes) == 1 and scopes[0].kind == "stock" and len(scopes[0].values) > 1
