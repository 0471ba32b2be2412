"""ORM writes of a running job that survive a dropped database connection.

A job runs for seconds on a worker thread that keeps its connection. When PostgreSQL drops it (a
restart, a failover, pg_terminate_backend), Django marks the connection broken and every later query
on that thread fails until it is closed. A job must still store its events and its end, so these
writes close the broken connection and try once more on a new one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connection

logger = logging.getLogger(__name__)

T = TypeVar("T")


def reconnecting(operation: Callable[[], T]) -> T:
    try:
        return operation()
    except (OperationalError, InterfaceError) as error:
        if connection.in_atomic_block:
            raise  # a transaction cannot continue on a new connection
        logger.warning("the database connection was lost (%s); reconnecting once", error)
        connection.close()
        return operation()
