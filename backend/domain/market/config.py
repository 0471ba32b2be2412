"""Connection and limit settings for the market store, independent of Django."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from backend.domain.market.execution.admission import AdmissionLimits


@dataclass(frozen=True)
class QueryLimits:
    """Server-side limits applied to every analyst query (DESIGN.md §4).

    Overflow modes are `throw`, never `break`: a silently truncated screen would look complete.
    """

    max_execution_seconds: int = 30
    max_result_rows: int = 100_000
    max_memory_bytes: int = 4 * 1024**3

    def as_settings(self, seconds_left: float | None = None) -> dict[str, Any]:
        """ClickHouse settings; `seconds_left` (what remains of the caller's deadline once the query
        is admitted) replaces the time limit when it is shorter."""
        time_limit: float = self.max_execution_seconds
        if seconds_left is not None and seconds_left < time_limit:
            time_limit = max(round(seconds_left, 3), 0.001)
        return {
            "readonly": 1,
            "max_execution_time": time_limit,
            "timeout_overflow_mode": "throw",
            "max_result_rows": self.max_result_rows,
            "result_overflow_mode": "throw",
            "max_memory_usage": self.max_memory_bytes,
        }


@dataclass(frozen=True)
class StoreConfig:
    """Where the market data lives.

    `url` is either `chdb:///<directory>` (ClickHouse in-process) or
    `clickhouse://user:password@host:port[?secure=true]` (a server; use a read-only user).
    """

    url: str
    database: str = "market"
    cluster: str = ""
    limits: QueryLimits = field(default_factory=QueryLimits)
    admission: AdmissionLimits = field(default_factory=AdmissionLimits)

    @property
    def is_embedded(self) -> bool:
        return self.url.startswith("chdb://")

    @property
    def chdb_path(self) -> str:
        if not self.is_embedded:
            raise ValueError("not an embedded (chdb://) store")
        return self.url[len("chdb://") :]

    def server_connect_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `clickhouse_connect.get_client` when talking to a server."""
        parsed = urlparse(self.url)
        if parsed.scheme not in {"clickhouse", "clickhouses", "http", "https"}:
            raise ValueError(
                f"unsupported ClickHouse URL scheme {parsed.scheme!r}; use chdb:// or clickhouse://"
            )
        options = {key: values[-1] for key, values in parse_qs(parsed.query).items()}
        secure = parsed.scheme in {"clickhouses", "https"} or options.get("secure", "").lower() in {
            "1",
            "true",
        }
        return {
            "host": parsed.hostname or "127.0.0.1",
            "port": parsed.port or (8443 if secure else 8123),
            "username": unquote(parsed.username or "default"),
            "password": unquote(parsed.password or ""),
            "secure": secure,
        }
