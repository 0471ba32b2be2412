"""ClickHouse errors as analyst-readable messages that leak nothing.

ClickHouse messages echo the statement with the session's SETTINGS clause ("In scope SELECT …
SETTINGS readonly = '1', …"), suggest other tables and columns ("Maybe you meant …"), and quote
values from the data being processed ("while executing … 'abc'_String"). The message shown keeps the
error code, the first statement of what went wrong and the error name; the rest is dropped.
"""

from __future__ import annotations

import re

from backend.domain.market.errors import (
    MemoryLimitExceeded,
    QueryCancelled,
    QueryFailed,
    QueryTimeout,
    ResultTooLarge,
)

TIMEOUT_CODES = frozenset({159, 160, 209})  # TIMEOUT_EXCEEDED, TOO_SLOW, SOCKET_TIMEOUT
TOO_MANY_ROWS_CODES = frozenset({396})  # TOO_MANY_ROWS_OR_BYTES
MEMORY_CODES = frozenset({241})  # MEMORY_LIMIT_EXCEEDED
READONLY_CODES = frozenset({164})  # READONLY: a write or a settings change refused under readonly=1
CANCELLED_CODES = frozenset({394})  # QUERY_WAS_CANCELLED

_CODE = re.compile(r"Code: (\d+)")
_NAME = re.compile(r"\(([A-Z][A-Z0-9_]+)\)\s*(?:\(version [^)]*\))?\s*$")
# Everything from the first of these markers on is an echo of the statement, a hint or data.
_TRAILERS = re.compile(
    r"(?:\s*Maybe you meant\b|\s*In scope\b|:?\s*while executing\b|:?\s*While processing\b|"
    r"\s*\(line \d+, col \d+\)|\s+SETTINGS\b|\s*Stack trace\b|:\s*while converting\b)",
    re.IGNORECASE,
)
_MAX_CHARS = 240


def error_code(error: BaseException) -> int | None:
    code = getattr(error, "code", None)
    if isinstance(code, int) and code > 0:
        return code
    match = _CODE.search(str(error))
    return int(match.group(1)) if match else None


def readable_message(error: BaseException) -> str:
    """`Code: 60. Unknown table expression identifier 'market.dail'. (UNKNOWN_TABLE)` and no more."""
    text = str(error).strip()
    start = text.find("Code: ")
    text = text[start:] if start >= 0 else text
    name_match = _NAME.search(text)
    name = name_match.group(1) if name_match else ""
    body = text.replace("DB::Exception: ", "", 1)
    trailer = _TRAILERS.search(body)
    if trailer:
        body = body[: trailer.start()]
    body = " ".join(body.split()).rstrip(" .:,")
    if len(body) > _MAX_CHARS:
        body = body[: _MAX_CHARS - 1].rstrip() + "…"
    if name and not body.endswith(f"({name})"):
        body = f"{body}. ({name})"
    return body or type(error).__name__


def unreachable_reason(error: BaseException) -> str:
    """Why a server could not be reached, without its address (the HTTP client's text names the host,
    the port and the URL): for whoever asked; the log keeps the full text."""
    text = str(error).lower()
    if "timed out" in text or "timeout" in text:
        return "it did not answer in time"
    if "refused" in text or "newconnectionerror" in text or "failed to establish" in text:
        return "it refused the connection"
    if "name or service not known" in text or "nodename nor servname" in text:
        return "its host name does not resolve"
    return "the connection failed"


def translate(error: BaseException) -> QueryFailed:
    """The store's error class for a ClickHouse failure, with a message safe to show anyone."""
    code = error_code(error)
    message = readable_message(error)
    if code in TIMEOUT_CODES:
        return QueryTimeout(f"the query ran past its time limit and was stopped: {message}")
    if code in TOO_MANY_ROWS_CODES:
        return ResultTooLarge(
            f"the result has more rows than the limit allows; narrow the screen or add a limit: {message}"
        )
    if code in MEMORY_CODES:
        return MemoryLimitExceeded(f"the query needed more memory than allowed: {message}")
    if code in CANCELLED_CODES:
        return QueryCancelled("the query was cancelled while it ran: the client has gone")
    if code in READONLY_CODES:
        return QueryFailed(f"ClickHouse refused it in read-only mode (screens may only read): {message}")
    return QueryFailed(f"ClickHouse refused the query: {message}")
