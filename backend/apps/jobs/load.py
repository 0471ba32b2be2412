"""The WebSocket load benchmark: N clients at once, each asks over the REST API and follows its job's
events on the WebSocket until `job_finished`; every client's events must be complete and in order.

Per client: events numbered 1..n without a gap or a repeat, `run_started` first, `run_finished` before
the closing `job_finished`, and a final job status of `done`. Timing: from the ask request to the
client receiving `job_finished`.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.typing import Origin

QUESTIONS = (
    "2025年9月8日收盘价最高的上交所股票",
    "PE below 15",
    "市值最大的10只股票",
    "2025年9月8日涨幅前5的股票",
    "top 5 stocks by turnover on 2025-09-08",
)


@dataclass
class ClientOutcome:
    client: int
    question: str
    job_id: int | None = None
    events: int = 0
    seconds_to_result: float | None = None
    job_status: str = ""
    answer_status: str = ""
    errors: list[str] = field(default_factory=list)


def check_events(events: list[dict[str, Any]]) -> list[str]:
    """What is wrong with one client's stream (nothing: an empty list)."""
    problems: list[str] = []
    seqs = [event.get("seq") for event in events]
    if seqs != list(range(1, len(events) + 1)):
        problems.append(f"events not numbered 1..{len(events)} in order: {seqs}")
    types = [event.get("type") for event in events]
    if not types or types[-1] != "job_finished":
        problems.append("the stream does not end with job_finished")
    elif types[0] != "run_started" or "run_finished" not in types or types[-2] != "run_finished":
        problems.append(f"pipeline events incomplete: first {types[:1]}, last two {types[-2:]}")
    return problems


async def _one_client(number: int, base_url: str, token: str, question: str, timeout: float) -> ClientOutcome:
    outcome = ClientOutcome(client=number, question=question)
    headers = {"Authorization": f"Token {token}"}
    started = time.perf_counter()
    try:
        async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=timeout) as http:
            asked = await http.post("/api/jobs/", json={"question": question})
            if asked.status_code != 202:
                outcome.errors.append(f"ask answered {asked.status_code}: {asked.text[:200]}")
                return outcome
            job = asked.json()
            outcome.job_id = int(job["id"])
        ws_url = base_url.replace("http://", "ws://", 1) + job["stream"]
        events: list[dict[str, Any]] = []
        origin = Origin(base_url)  # the server refuses sockets from origins outside ALLOWED_HOSTS
        async with connect(ws_url, additional_headers=headers, origin=origin, open_timeout=timeout) as socket:
            while not events or events[-1].get("type") != "job_finished":
                message = json.loads(await asyncio.wait_for(socket.recv(), timeout=timeout))
                events.append(message["event"])
        outcome.seconds_to_result = round(time.perf_counter() - started, 3)
        outcome.events = len(events)
        outcome.job_status = str(events[-1].get("job_status", ""))
        outcome.answer_status = str(events[-1].get("answer_status", ""))
        outcome.errors += check_events(events)
        if outcome.job_status != "done":
            outcome.errors.append(f"job ended {outcome.job_status}: {events[-1].get('message', '')}")
    except Exception as error:  # every failure of a client is reported, never raised
        outcome.errors.append(f"{type(error).__name__}: {error}")
    return outcome


def percentile(values: list[float], fraction: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))]


@dataclass(frozen=True)
class LoadReport:
    mode: str
    clients: int
    ok_clients: int
    errors: int
    events_total: int
    p50_seconds: float | None
    p95_seconds: float | None
    max_seconds: float | None
    mean_seconds: float | None
    wall_seconds: float
    answer_statuses: dict[str, int]
    outcomes: list[ClientOutcome]

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


async def _all_clients(base_url: str, tokens: list[str], clients: int, timeout: float) -> list[ClientOutcome]:
    return list(
        await asyncio.gather(
            *(
                _one_client(
                    number,
                    base_url,
                    tokens[number % len(tokens)],
                    QUESTIONS[number % len(QUESTIONS)],
                    timeout,
                )
                for number in range(clients)
            )
        )
    )


def run_load(mode: str, base_url: str, tokens: list[str], clients: int, timeout: float) -> LoadReport:
    started = time.perf_counter()
    outcomes = asyncio.run(_all_clients(base_url, tokens, clients, timeout))
    wall = round(time.perf_counter() - started, 3)
    seconds = [outcome.seconds_to_result for outcome in outcomes if outcome.seconds_to_result is not None]
    statuses: dict[str, int] = {}
    for outcome in outcomes:
        statuses[outcome.answer_status or "-"] = statuses.get(outcome.answer_status or "-", 0) + 1
    return LoadReport(
        mode=mode,
        clients=clients,
        ok_clients=sum(not outcome.errors for outcome in outcomes),
        errors=sum(len(outcome.errors) for outcome in outcomes),
        events_total=sum(outcome.events for outcome in outcomes),
        p50_seconds=percentile(seconds, 0.50),
        p95_seconds=percentile(seconds, 0.95),
        max_seconds=max(seconds) if seconds else None,
        mean_seconds=round(statistics.fmean(seconds), 3) if seconds else None,
        wall_seconds=wall,
        answer_statuses=statuses,
        outcomes=outcomes,
    )


async def _closed_loop(
    client: int, base_url: str, token: str, until: float, timeout: float
) -> list[ClientOutcome]:
    """One client asking one question after another (each followed to its end) until `until`."""
    outcomes: list[ClientOutcome] = []
    while time.monotonic() < until:
        question = QUESTIONS[(client + len(outcomes)) % len(QUESTIONS)]
        outcomes.append(await _one_client(client, base_url, token, question, timeout))
    return outcomes


def sustained_load(
    base_url: str, tokens: list[str], clients: int, seconds: float, timeout: float
) -> list[ClientOutcome]:
    """`clients` closed-loop clients for `seconds` (a question started before the end is finished)."""

    async def everyone() -> list[ClientOutcome]:
        until = time.monotonic() + seconds
        per_client = await asyncio.gather(
            *(
                _closed_loop(client, base_url, tokens[client % len(tokens)], until, timeout)
                for client in range(clients)
            )
        )
        return [outcome for outcomes in per_client for outcome in outcomes]

    return asyncio.run(everyone())
