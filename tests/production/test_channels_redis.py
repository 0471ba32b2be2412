"""Channels' RedisChannelLayer on a real Redis: group send and receive across two layer instances
(as between the web process and a worker)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from channels_redis.core import RedisChannelLayer

from tests.production.services import REDIS_URL, require_redis

pytestmark = pytest.mark.production


async def _round_trip(prefix: str) -> tuple[dict[str, object], dict[str, object]]:
    sender = RedisChannelLayer(hosts=[REDIS_URL], prefix=prefix)
    receiver = RedisChannelLayer(hosts=[REDIS_URL], prefix=prefix)
    try:
        channel = await receiver.new_channel()
        await receiver.group_add("trace-42", channel)
        await sender.group_send("trace-42", {"type": "pipeline.step", "step": "probe", "ok": True})
        grouped = await asyncio.wait_for(receiver.receive(channel), timeout=10)
        await sender.send(channel, {"type": "pipeline.done", "verdict": "verified"})
        direct = await asyncio.wait_for(receiver.receive(channel), timeout=10)
        await receiver.group_discard("trace-42", channel)
        return grouped, direct
    finally:
        await sender.flush()
        await sender.close_pools()
        await receiver.close_pools()


def test_group_send_and_receive_round_trip() -> None:
    require_redis()
    grouped, direct = asyncio.run(_round_trip(f"veriscreen-test-{uuid.uuid4().hex[:8]}"))
    assert grouped == {"type": "pipeline.step", "step": "probe", "ok": True}
    assert direct == {"type": "pipeline.done", "verdict": "verified"}
