"""Errors of the market store, each with a message an analyst can read."""

from __future__ import annotations


class MarketError(Exception):
    """Base class; `code` is a stable machine-readable name, `str()` the human message."""

    code = "market_error"


class StoreUnavailable(MarketError):
    code = "store_unavailable"


class StoreBusy(MarketError):
    """Too many queries are waiting; `retry_after` (seconds) says when to try again."""

    code = "store_busy"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class QueryRejected(MarketError):
    """The SQL guard refused a statement before it reached ClickHouse."""

    code = "query_rejected"


class QueryFailed(MarketError):
    code = "query_failed"


class QueryTimeout(QueryFailed):
    code = "query_timeout"


class ResultTooLarge(QueryFailed):
    code = "result_too_large"


class MemoryLimitExceeded(QueryFailed):
    code = "memory_limit_exceeded"


class QueryCancelled(QueryFailed):
    """The caller went away (or cancelled) before the query finished; nothing was returned."""

    code = "query_cancelled"


class ImportRejected(MarketError):
    """A data file was refused; the store is left exactly as it was."""

    code = "import_rejected"
