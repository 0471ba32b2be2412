"""The platform fixtures (users with tokens, held jobs) shared with tests/jobs."""

from tests.jobs.conftest import admin, alice, bob, held_jobs

__all__ = ["admin", "alice", "bob", "held_jobs"]
