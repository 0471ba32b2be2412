"""The stock universe of the demo: real codes, cleaned names, boards, industries and regions."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import date

import numpy as np
from pypinyin import Style, lazy_pinyin

from backend.domain.market.demo.industries import area_for, industry_for
from backend.domain.market.demo.reference import ReferenceCode, read_codes
from backend.domain.market.errors import MarketError

# Companies every demo keeps, however small, so that examples and tests can rely on them.
FAMOUS_CODES: tuple[str, ...] = (
    "600519", "000001", "300750", "688981", "601318", "000858", "300059", "600036", "601398",
    "000333", "000651", "002594", "600276", "000002", "601012", "002415", "600900", "601857",
    "600030", "300760", "002475", "688111", "601888", "600887",
)  # fmt: skip

# (board, exchange, suffix) by the leading digits of the code; B shares (200/201/900) are left out.
_BOARD_BY_PREFIX: tuple[tuple[tuple[str, ...], tuple[str, str, str]], ...] = (
    (("600", "601", "603", "605"), ("主板", "SSE", "SH")),
    (("688", "689"), ("科创板", "SSE", "SH")),
    (("000", "001", "002", "003"), ("主板", "SZSE", "SZ")),
    (("300", "301"), ("创业板", "SZSE", "SZ")),
    (("4", "8", "920"), ("北交所", "BSE", "BJ")),
)


def board_of(code: str) -> tuple[str, str, str] | None:
    """(board, exchange, ts_code suffix) of a six-digit A-share code; None when it is not an A share."""
    for prefixes, placement in _BOARD_BY_PREFIX:
        if code.startswith(prefixes):
            return placement
    return None


def clean_name(raw: str) -> str:
    """Reference names are padded ('五 粮 液', '万  科Ａ'): fold full-width forms, drop spaces."""
    return "".join(unicodedata.normalize("NFKC", raw).split())


def cnspell(name: str) -> str:
    """Lower-case pinyin initials, as Chinese stock apps use them: 贵州茅台 -> gzmt, TCL科技 -> tclkj."""
    initials = "".join(lazy_pinyin(name, style=Style.FIRST_LETTER, errors="default"))
    return "".join(char for char in initials.lower() if char.isascii() and char.isalnum())


@dataclass(frozen=True)
class Stock:
    code: str
    ts_code: str
    name: str
    cnspell: str
    board: str
    exchange: str
    industry: str
    area: str
    list_date: date


def _stock(ref: ReferenceCode) -> Stock | None:
    placement = board_of(ref.code)
    if placement is None or ref.list_date is None:
        # B shares are another market; codes without a listing date are delisted/merged companies
        # whose dates the reference does not give, so the demo leaves them out.
        return None
    board, exchange, suffix = placement
    name = clean_name(ref.raw_name)
    return Stock(
        code=ref.code,
        ts_code=f"{ref.code}.{suffix}",
        name=name,
        cnspell=cnspell(name),
        board=board,
        exchange=exchange,
        industry=industry_for(ref.code, name, board),
        area=area_for(ref.code, name),
        list_date=ref.list_date,
    )


def all_stocks(listed_by: date) -> list[Stock]:
    """Every A share of the reference file listed on or before `listed_by`, sorted by code."""
    stocks = [stock for ref in read_codes() if (stock := _stock(ref)) is not None]
    return sorted((s for s in stocks if s.list_date <= listed_by), key=lambda s: s.code)


def choose_stocks(stocks: list[Stock], n_stocks: int | None, rng: np.random.Generator) -> list[Stock]:
    """All stocks, or a sample of `n_stocks` that keeps the famous names and every board's share."""
    if n_stocks is None or n_stocks >= len(stocks):
        return stocks
    if n_stocks < len(FAMOUS_CODES):
        raise MarketError(f"a demo needs at least {len(FAMOUS_CODES)} stocks (the famous names)")
    famous = [s for s in stocks if s.code in FAMOUS_CODES]
    others = [s for s in stocks if s.code not in FAMOUS_CODES]
    remaining = n_stocks - len(famous)
    pools = {board: [s for s in others if s.board == board] for board in sorted({s.board for s in others})}
    # Each board keeps its share of the market (at least three names); the largest absorbs rounding.
    quotas = {board: max(3, round(remaining * len(pool) / len(others))) for board, pool in pools.items()}
    largest = max(pools, key=lambda board: len(pools[board]))
    quotas[largest] += remaining - sum(quotas.values())
    chosen = list(famous)
    for board, pool in pools.items():
        picks = rng.choice(len(pool), size=min(max(quotas[board], 0), len(pool)), replace=False)
        chosen.extend(pool[i] for i in sorted(picks))
    return sorted(chosen, key=lambda s: s.code)
