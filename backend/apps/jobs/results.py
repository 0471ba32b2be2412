"""A finished job's result as pages of rows and as CSV (shared by jobs and screens)."""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.http import StreamingHttpResponse

from backend.apps.jobs.models import Job

MAX_PAGE_SIZE = 1000
DEFAULT_PAGE_SIZE = 100


@dataclass(frozen=True)
class ResultPage:
    job: Job
    columns: list[str]
    column_types: list[str]
    rows: list[list[Any]]
    row_count: int
    page: int
    page_size: int
    pages: int
    initial_sql: str | None
    qst: Any
    warnings: list[str]
    checks: list[Any]
    rounds: list[Any]
    correction_round: int | None
    timings_ms: dict[str, float]
    engine: str


def result_page(job: Job, page: int, page_size: int) -> ResultPage:
    result: dict[str, Any] = job.result or {}
    rows: list[list[Any]] = result.get("rows", [])
    size = max(1, min(page_size, MAX_PAGE_SIZE))
    pages = max(1, math.ceil(len(rows) / size))
    number = max(1, min(page, pages))
    return ResultPage(
        job=job,
        columns=result.get("columns", []),
        column_types=result.get("column_types", []),
        rows=rows[(number - 1) * size : number * size],
        row_count=len(rows),
        page=number,
        page_size=size,
        pages=pages,
        initial_sql=result.get("initial_sql"),
        qst=result.get("qst"),
        warnings=result.get("warnings", []),
        checks=result.get("checks", []),
        rounds=result.get("rounds", []),
        correction_round=result.get("correction_round"),
        timings_ms=result.get("timings_ms", {}),
        engine=result.get("engine", ""),
    )


class _Echo:
    def write(self, value: str) -> str:
        return value


def _csv_lines(columns: list[str], rows: list[list[Any]]) -> Iterator[str]:
    writer = csv.writer(_Echo())
    yield "\ufeff"  # a byte-order mark: spreadsheet programs then read the Chinese names as UTF-8
    yield writer.writerow(columns)
    for row in rows:
        yield writer.writerow(["" if cell is None else cell for cell in row])


def csv_response(job: Job, filename: str) -> StreamingHttpResponse:
    result: dict[str, Any] = job.result or {}
    response = StreamingHttpResponse(
        _csv_lines(result.get("columns", []), result.get("rows", [])), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
