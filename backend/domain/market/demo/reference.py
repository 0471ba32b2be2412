"""Readers for the real reference files (codes, names, listing dates, trading calendar).

The files live in backend/domain/market/reference/ with their SOURCE.txt and Apache-2.0 NOTICE.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from backend.domain.market.errors import MarketError

REFERENCE_DIR = Path(__file__).resolve().parent.parent / "reference"
CODES_FILE = REFERENCE_DIR / "adata_a_share_codes.csv"
CALENDAR_DIR = REFERENCE_DIR / "calendar"


@dataclass(frozen=True)
class ReferenceCode:
    code: str  # six digits, e.g. 600519
    raw_name: str  # as shipped, may contain padding spaces and full-width letters
    list_date: date | None  # None for delisted/PT/merged companies


def read_codes() -> list[ReferenceCode]:
    with CODES_FILE.open(encoding="utf-8", newline="") as handle:
        return [
            ReferenceCode(
                code=row["stock_code"].strip(),
                raw_name=row["short_name"],
                list_date=date.fromisoformat(row["list_date2"]) if row["list_date2"].strip() else None,
            )
            for row in csv.DictReader(handle)
        ]


def calendar_years() -> list[int]:
    return sorted(int(path.stem) for path in CALENDAR_DIR.glob("*.csv"))


def read_calendar(first: date, last: date) -> list[tuple[date, bool]]:
    """Every calendar day in [first, last] with its open flag, from the real exchange calendar."""
    years = set(calendar_years())
    missing = [year for year in range(first.year, last.year + 1) if year not in years]
    if missing:
        raise MarketError(
            f"the reference trading calendar has no data for {missing}; it covers {min(years)}-{max(years)}"
        )
    days: list[tuple[date, bool]] = []
    for year in range(first.year, last.year + 1):
        with (CALENDAR_DIR / f"{year}.csv").open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                day = date.fromisoformat(row["trade_date"])
                if first <= day <= last:
                    days.append((day, row["trade_status"].strip() == "1"))
    return sorted(days)
