"""Synthetic, deterministic A-share demo market on real codes, names, listing dates and calendar."""

from backend.domain.market.demo.generator import (
    DATASET,
    DEFAULT_END,
    DEFAULT_SEED,
    DEFAULT_START,
    DemoSummary,
    build_demo_tables,
    generate_demo,
)

__all__ = [
    "DATASET",
    "DEFAULT_END",
    "DEFAULT_SEED",
    "DEFAULT_START",
    "DemoSummary",
    "build_demo_tables",
    "generate_demo",
]
