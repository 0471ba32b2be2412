"""Tushare Pro over its HTTP API: POST {api_name, token, params, fields} -> {code, msg, data}.

Rows come back as dicts keyed by Tushare's field names (which are the canonical column names), with
Tushare's own value formats (dates as YYYYMMDD text); `runner` types and checks them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from backend.domain.market.schema import TABLES_BY_NAME
from backend.domain.market.sync.errors import SyncFailed
from backend.domain.market.sync.transport import HttpPost, urllib_post

API_URL = "http://api.tushare.pro"
DEFAULT_TIMEOUT = 30.0

Row = dict[str, Any]

# Income statements and financial indicators of every company for one report period need the
# `_vip` endpoints (a Tushare account with enough points); the plain ones take one company per call.
_API_NAME = {"income": "income_vip", "fina_indicator": "fina_indicator_vip"}
# Fields asked for beyond the canonical columns: used to keep one row per key, then dropped.
_EXTRA_FIELDS = {"income": ["update_flag"], "fina_indicator": ["update_flag"]}


def yyyymmdd(day: date) -> str:
    return day.strftime("%Y%m%d")


class TushareClient:
    """One Tushare Pro account; `post` is the HTTP call (injected in tests)."""

    def __init__(
        self, token: str, post: HttpPost = urllib_post, url: str = API_URL, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        if not token:
            raise SyncFailed("Tushare needs a token: set TUSHARE_TOKEN (your Tushare Pro account's token)")
        self._token = token
        self._post = post
        self._url = url
        self._timeout = timeout

    def query(self, api_name: str, params: Mapping[str, str], fields: list[str]) -> list[Row]:
        payload = {
            "api_name": api_name,
            "token": self._token,
            "params": dict(params),
            "fields": ",".join(fields),
        }
        reply = self._post(self._url, payload, self._timeout)
        if reply.get("code") != 0:
            raise SyncFailed(
                f"Tushare {api_name} refused the request: {reply.get('msg') or reply.get('code')}"
            )
        data = reply.get("data")
        if not isinstance(data, dict) or not isinstance(data.get("fields"), list):
            raise SyncFailed(f"Tushare {api_name}: the reply has no data.fields")
        names: list[str] = data["fields"]
        items = data.get("items") or []
        rows = []
        for item in items:
            if not isinstance(item, list) or len(item) != len(names):
                raise SyncFailed(f"Tushare {api_name}: a row does not match the {len(names)} fields")
            rows.append(dict(zip(names, item, strict=True)))
        return rows


class TushareSource:
    """Every table of the sync from Tushare Pro."""

    name = "tushare"
    dataset = "ashare_tushare"
    licence = (
        "Tushare Pro data, fetched with your own token under Tushare's terms of use; not redistributable"
    )

    def __init__(self, client: TushareClient) -> None:
        self._client = client

    def _fetch(self, table: str, params: Mapping[str, str]) -> list[Row]:
        fields = TABLES_BY_NAME[table].column_names + _EXTRA_FIELDS.get(table, [])
        return self._client.query(_API_NAME.get(table, table), params, fields)

    def stock_basic(self) -> list[Row]:
        rows: list[Row] = []
        for status in ("L", "D", "P"):  # listed, delisted, listing suspended
            rows += self._fetch("stock_basic", {"list_status": status})
        return rows

    def prepare(self, table: str, days: Sequence[date]) -> None:
        """Nothing to prepare: Tushare answers one trade date for the whole market per call."""

    def trade_cal(self, exchange: str, start: date, end: date) -> list[Row]:
        params = {"exchange": exchange, "start_date": yyyymmdd(start), "end_date": yyyymmdd(end)}
        return self._fetch("trade_cal", params)

    def daily(self, day: date) -> list[Row]:
        return self._fetch("daily", {"trade_date": yyyymmdd(day)})

    def daily_basic(self, day: date) -> list[Row]:
        return self._fetch("daily_basic", {"trade_date": yyyymmdd(day)})

    def income(self, period: date) -> list[Row]:
        return self._fetch("income", {"period": yyyymmdd(period), "report_type": "1"})

    def fina_indicator(self, period: date) -> list[Row]:
        return self._fetch("fina_indicator", {"period": yyyymmdd(period)})

    def index_weight(self, index_code: str, start: date, end: date) -> list[Row]:
        params = {"index_code": index_code, "start_date": yyyymmdd(start), "end_date": yyyymmdd(end)}
        return self._fetch("index_weight", params)
