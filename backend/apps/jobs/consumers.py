"""WebSocket /ws/jobs/<id>/?after=<seq>: a job's events, the stored ones first, then live, each once.

The consumer joins the job's group before it reads the stored events, and the sink stores an event
before it sends it to the group (sink.py): every event is either in the history read or arrives live
(or both), and `seq` decides. Events are sent in strictly increasing `seq`; a live event that skips a
number makes the consumer read the gap from the database first.

Messages to the client: `{"type": "event", "event": {...}}` for each event. Close codes: 4401 not
logged in, 4404 no such job for this user (the same for another user's job), 1013 live events are
unavailable for now (the channel layer could not be reached in time): the stored events were sent, and
the client reconnects with ?after= as after any dropped connection — never a socket left silent.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from backend.apps.jobs import selectors
from backend.apps.jobs.sink import job_group, remember_server_loop

CLOSE_NOT_AUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_TRY_AGAIN_LATER = 1013

logger = logging.getLogger(__name__)


def _after(query_string: bytes) -> int:
    values = parse_qs(query_string.decode("latin-1")).get("after", ["0"])
    try:
        return max(0, int(values[-1]))
    except ValueError:
        return 0


class JobConsumer(AsyncJsonWebsocketConsumer):
    job_id: int
    last_seq: int
    group: str | None = None

    async def connect(self) -> None:
        remember_server_loop()
        user = self.scope.get("user")
        self.job_id = int(self.scope["url_route"]["kwargs"]["job_id"])
        await self.accept()  # accepted first, so that the close code reaches the client
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_NOT_AUTHENTICATED)
            return
        if not await database_sync_to_async(selectors.can_see_job)(user, self.job_id):
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.last_seq = _after(self.scope.get("query_string", b""))
        joined = await self._join_group()
        await self._send_stored()
        if not joined:
            await self.close(code=CLOSE_TRY_AGAIN_LATER)

    async def _join_group(self) -> bool:
        """Join the job's group, within a bounded time: a channel layer that errors or hangs (Redis
        restarting) must not leave the client waiting on a socket that never speaks."""
        group = job_group(self.job_id)
        try:
            await asyncio.wait_for(
                self.channel_layer.group_add(group, self.channel_name),
                settings.CHANNEL_LAYER_JOIN_TIMEOUT_SECONDS,
            )
        except Exception as error:  # whatever the layer raised, the client gets the history and retries
            logger.warning(
                "job %s: live events unavailable, could not join its group: %r", self.job_id, error
            )
            return False
        self.group = group
        return True

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """Clients only listen; anything they send is ignored."""

    async def _send_stored(self) -> None:
        for event in await database_sync_to_async(selectors.job_events)(self.job_id, self.last_seq):
            await self._send_event(event)

    async def _send_event(self, event: dict[str, Any]) -> None:
        seq = int(event["seq"])
        if seq <= self.last_seq:
            return
        self.last_seq = seq
        await self.send_json({"type": "event", "event": event})

    async def job_event(self, message: dict[str, Any]) -> None:
        event = message["event"]
        if int(event["seq"]) > self.last_seq + 1:
            await self._send_stored()  # a gap: the missing events are stored already
        await self._send_event(event)
