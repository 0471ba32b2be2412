"""The one place job events are sent from: persisted as JobEvent rows, then sent to the job's group.

The pipeline calls `emit` in `seq` order (trace.Trace.record holds a lock), possibly from the threads
that run reverse checks. The sink hands every event to one writer thread per job, which writes it and
only then sends it to the Channels group: an event a client receives live is always already stored, so
a client that reads the history after joining the group misses nothing (consumers.py drops repeats).
The writer also keeps database connections off the pipeline's short-lived threads.

The writer sends on an event loop of its own (one channel-layer connection per job, and its log lines
keep the job's id). A send that fails — Redis restarting — does not stop the writer: the event is
stored, and clients get it from the history when they reconnect (the consumer also reads the
history when it sees a gap). Only a failure to store ends the job as failed.

The in-memory channel layer (embedded mode) is not thread-safe: its queues belong to the server's event
loop, and a message put from another thread's loop may not wake the consumer waiting on it. So the
consumers record the server's loop when they connect, and the writer hands in-memory sends to it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import queue
import threading
from functools import partial
from typing import Any

from channels.layers import BaseChannelLayer, InMemoryChannelLayer, get_channel_layer
from django.db import close_old_connections, connection

from backend.apps.jobs.models import JobEvent
from backend.apps.jobs.reconnect import reconnecting
from backend.domain.pipeline.trace import RecordedEvent

logger = logging.getLogger(__name__)

JOB_EVENT_MESSAGE = "job.event"  # the Channels message type (consumers.JobConsumer.job_event)
SEND_TIMEOUT_SECONDS = 10.0

_server_loop: asyncio.AbstractEventLoop | None = None


def remember_server_loop() -> None:
    """Called by the consumers, on the loop that serves WebSockets."""
    global _server_loop
    _server_loop = asyncio.get_running_loop()


def _send(
    layer: BaseChannelLayer, own_loop: asyncio.AbstractEventLoop, group: str, message: dict[str, Any]
) -> None:
    server_loop = _server_loop
    if isinstance(layer, InMemoryChannelLayer) and server_loop is not None and server_loop.is_running():
        sending = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), server_loop)
        sending.result(SEND_TIMEOUT_SECONDS)
    else:
        own_loop.run_until_complete(asyncio.wait_for(layer.group_send(group, message), SEND_TIMEOUT_SECONDS))


def job_group(job_id: int) -> str:
    return f"job-{job_id}"


class JobEventSink:
    """An EventSink (backend/domain/pipeline/ports.py) for one job; `close()` flushes and stops it."""

    def __init__(self, job_id: int, first_seq: int = 1) -> None:
        self.job_id = job_id
        self._next_seq = first_seq
        self._lock = threading.Lock()
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._failure: BaseException | None = None
        self._writer = threading.Thread(  # with the caller's context: its log lines name the job
            target=contextvars.copy_context().run,
            args=(self._write_all,),
            name=f"job-{job_id}-events",
            daemon=True,
        )
        self._writer.start()

    def emit(self, event: RecordedEvent) -> None:
        self.publish(event.to_dict())

    def publish(self, payload: dict[str, Any]) -> None:
        """Number the event in the job and queue it for the writer. The pipeline's events come first and
        in order, so they keep the numbers the pipeline gave them."""
        with self._lock:
            self._queue.put({**payload, "seq": self._next_seq})
            self._next_seq += 1

    def close(self) -> None:
        """Wait until every event is stored and sent; re-raise a failure of the writer."""
        self._queue.put(None)
        self._writer.join()
        if self._failure is not None:
            raise self._failure

    def _store(self, payload: dict[str, Any]) -> None:
        # get_or_create: after a dropped connection the first attempt may have been stored already.
        JobEvent.objects.get_or_create(
            job_id=self.job_id,
            seq=payload["seq"],
            defaults={"type": str(payload["type"]), "payload": payload},
        )

    def _write_all(self) -> None:
        layer = get_channel_layer()
        group = job_group(self.job_id)
        loop = asyncio.new_event_loop()
        unsent = 0
        try:
            while (payload := self._queue.get()) is not None:
                if self._failure is not None:
                    continue  # drain: the job ends as failed and reports it
                try:
                    reconnecting(partial(self._store, payload))
                except Exception as error:  # handed to the job's thread by close()
                    self._failure = error
                    continue
                if layer is None:
                    continue
                try:
                    _send(layer, loop, group, {"type": JOB_EVENT_MESSAGE, "event": payload})
                except Exception as error:  # stored: clients read it from the history
                    unsent += 1
                    logger.warning(
                        "event %s of job %s stored, not sent live: %r", payload["seq"], self.job_id, error
                    )
        finally:
            if unsent:
                logger.warning("job %s: %d events were stored but not sent live", self.job_id, unsent)
            try:
                loop.close()  # the channel layer closes its connection of this loop
            except Exception as error:
                logger.warning("job %s: closing its channel-layer connection failed: %r", self.job_id, error)
            close_old_connections()
            connection.close()
