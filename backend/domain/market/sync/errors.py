"""Errors of the data sync."""

from __future__ import annotations

from backend.domain.market.errors import MarketError


class SyncFailed(MarketError):
    """A source refused a request or answered with something that is not its documented format."""

    code = "sync_failed"
