"""One module per error-prone point (sqlglot optimizer style): each has `build(subject)` returning the
reverse checks it can write for this question and answer — none when it cannot write a precise one."""

from __future__ import annotations

from collections.abc import Callable

from backend.domain.pipeline.validate.reverse.model import ReverseCheck
from backend.domain.pipeline.validate.reverse.rules import (
    aggregate,
    count,
    duplicates,
    empty_count,
    filter_violation,
    lookup,
    missing,
    scope,
    time_scope,
    top_k,
)
from backend.domain.pipeline.validate.reverse.subject import Subject

Rule = Callable[[Subject], list[ReverseCheck]]

RULES: tuple[Rule, ...] = (
    filter_violation.build,
    missing.build,
    top_k.build,
    scope.build,
    time_scope.build,
    aggregate.build,
    count.build,
    empty_count.build,
    duplicates.build,
    lookup.build,
    lookup.build_values,
)
