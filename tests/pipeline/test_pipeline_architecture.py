"""The reverse checks and the probe read the question a second time, like the checklist: nothing they
import — directly or through what they import — may come from the built-in parser, compiler, QST,
lexicon or engine (run.py and generators.py, which drive the generator, may)."""

from __future__ import annotations

from pathlib import Path

from tests.pipeline.test_checklist_architecture import ROOT, _forbidden, _reachable

PIPELINE = ROOT / "backend" / "domain" / "pipeline"
INDEPENDENT = [
    *sorted((PIPELINE / "validate" / "reverse").rglob("*.py")),
    *sorted((PIPELINE / "probe").rglob("*.py")),
    PIPELINE / "validate" / "grounded.py",
    PIPELINE / "validate" / "multiplicity.py",
    PIPELINE / "validate" / "boundary.py",
    PIPELINE / "validate" / "today.py",
    PIPELINE / "validate" / "checklist_stage.py",
    PIPELINE / "correct.py",
    PIPELINE / "trace.py",
    PIPELINE / "ports.py",
]


def test_second_readings_reach_nothing_of_the_parser() -> None:
    assert len(INDEPENDENT) > 15
    reached = _reachable(INDEPENDENT)
    offenders = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path, modules in reached.items()
        for module in modules
        if _forbidden(module)
    ]
    assert offenders == []


def test_the_walk_sees_the_generator_side(tmp_path: Path) -> None:
    reached = _reachable([PIPELINE / "generators.py"])
    assert any(_forbidden(module) for modules in reached.values() for module in modules)
