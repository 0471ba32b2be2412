"""Errors of the market store, each with a message an analyst can read."""

from __future__ import annotations


class MarketError(Exception):
    """Base class; `code` is a stable machine-readable name, `str()` the human message."""

    code = "market_error"


class StoreUnavailable(MarketError):
    code = "store_unavailable"


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


class ImportRejected(MarketError):
    """A data file was refused; the store is left exactly as it was."""

    code = "import_rejected"
