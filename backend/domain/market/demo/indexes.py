"""Index membership: monthly weight snapshots, constituents re-selected every June and December.

Rules (simplified but plausible): 沪深300 = top 300 SSE+SZSE stocks by average total market value,
上证50 = top 50 SSE, 中证500 = the next 500 after the 沪深300, 创业板指 = top 100 创业板. Only stocks
listed for a year and trading in the last month qualify. Weights are proportional to float market
value, capped at 10% per name, and sum to 100. A demo built from a sample of the market scales
the sizes by its share.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np

from backend.domain.market.demo.universe import Stock


@dataclass(frozen=True)
class IndexRule:
    code: str
    size: int
    exchanges: tuple[str, ...]
    boards: tuple[str, ...]
    skip: int = 0  # how many top names belong to a bigger index (中证500 starts after 沪深300)


INDEX_RULES: tuple[IndexRule, ...] = (
    IndexRule("000300.SH", 300, ("SSE", "SZSE"), ("主板", "创业板", "科创板")),
    IndexRule("000016.SH", 50, ("SSE",), ("主板", "科创板")),
    IndexRule("000905.SH", 500, ("SSE", "SZSE"), ("主板", "创业板", "科创板"), skip=300),
    IndexRule("399006.SZ", 100, ("SZSE",), ("创业板",)),
)

# Static facts of the four indexes: (market, publisher, base date, base point, list date).
INDEX_FACTS: dict[str, tuple[str, str, date, float, date]] = {
    "000300.SH": ("CSI", "中证指数有限公司", date(2004, 12, 31), 1000.0, date(2005, 4, 8)),
    "000016.SH": ("SSE", "上海证券交易所", date(2003, 12, 31), 1000.0, date(2004, 1, 2)),
    "000905.SH": ("CSI", "中证指数有限公司", date(2004, 12, 31), 1000.0, date(2007, 1, 15)),
    "399006.SZ": ("SZSE", "深圳证券交易所", date(2010, 5, 31), 1000.0, date(2010, 6, 1)),
}

_AVERAGING_DAYS = 120
WEIGHT_CAP = 10.0  # % per constituent, as the index rules cap single names
_REBALANCE_MONTHS = (6, 12)


@dataclass(frozen=True)
class WeightRows:
    index_code: list[str]
    con_index: np.ndarray  # stock position in the universe
    snapshot: np.ndarray  # datetime64[D]
    weight: np.ndarray


def capped_weights(float_mv: np.ndarray, cap: float = WEIGHT_CAP) -> np.ndarray:
    """Weights in % proportional to float market value, no name above `cap` (excess spread pro rata)."""
    weights = float_mv / float_mv.sum() * 100
    if weights.size * cap < 100:  # too few names for the cap to be possible
        return weights
    while (over := weights > cap + 1e-9).any():
        excess = (weights[over] - cap).sum()
        weights[over] = cap
        under = ~over & (weights < cap)
        weights[under] += excess * weights[under] / weights[under].sum()
    return weights


def month_end_positions(days: np.ndarray) -> np.ndarray:
    months = days.astype("datetime64[M]")
    return np.flatnonzero(np.append(months[1:] != months[:-1], True))


def index_weights(
    stocks: list[Stock],
    days: np.ndarray,
    total_mv: np.ndarray,
    circ_mv_carried: np.ndarray,
    has_bar: np.ndarray,
    scale: float,
) -> WeightRows:
    """Monthly snapshots; `total_mv` is NaN on days without a bar, `circ_mv_carried` is carried forward."""
    exchange = np.array([s.exchange for s in stocks])
    board = np.array([s.board for s in stocks])
    list_date = np.array([s.list_date for s in stocks], dtype="datetime64[D]")
    codes: list[str] = []
    con: list[np.ndarray] = []
    snaps: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for rule in INDEX_RULES:
        eligible_market = np.isin(exchange, rule.exchanges) & np.isin(board, rule.boards)
        size, skip = max(1, round(rule.size * scale)), round(rule.skip * scale)
        members = np.array([], dtype=np.int64)
        for position, t in enumerate(month_end_positions(days)):
            month = int(str(days[t])[5:7])
            if position == 0 or month in _REBALANCE_MONTHS:
                members = _select(rule, eligible_market, list_date, days, t, total_mv, has_bar, size, skip)
            live = members[~np.isnan(circ_mv_carried[members, t])]
            if live.size == 0:
                continue
            codes.extend([rule.code] * live.size)
            con.append(live)
            snaps.append(np.full(live.size, days[t]))
            weights.append(np.round(capped_weights(circ_mv_carried[live, t]), 4))
    return WeightRows(
        index_code=codes,
        con_index=np.concatenate(con) if con else np.array([], dtype=np.int64),
        snapshot=np.concatenate(snaps) if snaps else np.array([], dtype="datetime64[D]"),
        weight=np.concatenate(weights) if weights else np.array([]),
    )


def _select(
    rule: IndexRule,
    eligible_market: np.ndarray,
    list_date: np.ndarray,
    days: np.ndarray,
    t: int,
    total_mv: np.ndarray,
    has_bar: np.ndarray,
    size: int,
    skip: int,
) -> np.ndarray:
    window = slice(max(0, t - _AVERAGING_DAYS + 1), t + 1)
    recent = slice(max(0, t - 20), t + 1)
    seasoned = list_date <= days[t] - np.timedelta64(365, "D")
    trading = has_bar[:, recent].any(axis=1)
    candidates = np.flatnonzero(eligible_market & seasoned & trading)
    if candidates.size == 0:
        return candidates
    average = np.nanmean(np.where(has_bar[candidates, window], total_mv[candidates, window], np.nan), axis=1)
    ranked = candidates[np.argsort(-average, kind="stable")]
    return ranked[skip : skip + size]
