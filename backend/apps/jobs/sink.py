"""The one place job events are sent from: persisted as JobEvent rows, then sent to the job's group.

The pipeline calls `emit` in `seq` order (trace.Trace.record holds a lock), possibly from the threads
that run reverse checks. The sink hands every event to one writer thread per job, which writes it and
only then sends it to the Channels group: an event a client receives live is always already stored, so
a client that reads the history after joining the group misses nothing (consumers.py drops repeats).
The writer also keeps database connections off the pipeline's short-lived threads.

The in-memory channel layer (embedded mode) is not thread-safe: its queues belong to the server's event
loop, and a message put from another thread's loop may not wake the consumer waiting on it. So the
consumers record the server's loop when they connect, and the writer hands in-memory sends to it.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, InMemoryChannelLayer, get_channel_layer
from django.db import close_old_connections, connection

from backend.apps.jobs.models import JobEvent
from backend.domain.pipeline.trace import RecordedEvent

JOB_EVENT_MESSAGE = "job.event"  # the Channels message type (consumers.JobConsumer.job_event)
SEND_TIMEOUT_SECONDS = 10.0

_server_loop: asyncio.AbstractEventLoop | None = None


def remember_server_loop() -> None:
    """Called by the consumers, on the loop that serves WebSockets."""
    global _server_loop
    _server_loop = asyncio.get_running_loop()


def _send(layer: BaseChannelLayer, group: str, message: dict[str, Any]) -> None:
    loop = _server_loop
    if isinstance(layer, InMemoryChannelLayer) and loop is not None and loop.is_running():
        asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop).result(SEND_TIMEOUT_SECONDS)
    else:
        async_to_sync(layer.group_send)(group, message)


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
        self._writer = threading.Thread(target=self._write_all, name=f"job-{job_id}-events", daemon=True)
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

    def _write_all(self) -> None:
        layer = get_channel_layer()
        group = job_group(self.job_id)
        try:
            while (payload := self._queue.get()) is not None:
                if self._failure is not None:
                    continue  # drain: the job ends as failed and reports it
                try:
                    JobEvent.objects.create(
                        job_id=self.job_id, seq=payload["seq"], type=str(payload["type"]), payload=payload
                    )
                    if layer is not None:
                        _send(layer, group, {"type": JOB_EVENT_MESSAGE, "event": payload})
                except Exception as error:  # handed to the job's thread by close()
                    self._failure = error
        finally:
            close_old_connections()
            connection.close()
