"""The one network call of the sync, behind a small interface so that tests inject recorded replies."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Protocol

from backend.domain.market.sync.errors import SyncFailed


class HttpPost(Protocol):
    def __call__(self, url: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        """POST `payload` as JSON to `url` and return the decoded JSON object of the reply."""
        ...


def urllib_post(url: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Standard-library JSON POST (no extra dependency)."""
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            decoded = json.loads(response.read().decode("utf-8"))
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        raise SyncFailed(f"{url} cannot be reached: {error}") from error
    except ValueError as error:
        raise SyncFailed(f"{url} did not answer with JSON: {error}") from error
    if not isinstance(decoded, dict):
        raise SyncFailed(f"{url} answered with JSON that is not an object")
    return decoded
