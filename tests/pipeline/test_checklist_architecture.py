"""The checklist reads the question a second time, independently of the built-in parser: nothing it
imports — directly or through the modules it imports — may come from the parser, compiler, QST,
lexicon or engine API, and no module may name them or the parser's grammar words in code."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKLIST = ROOT / "backend" / "domain" / "pipeline" / "validate" / "checklist"
FORBIDDEN = tuple(
    f"backend.domain.language.{name}" for name in ("parser", "compiler", "qst", "lexicon", "api", "engine")
)
FORBIDDEN_TEXT = (*FORBIDDEN, "grammar_words")


def _imports(path: Path) -> list[str]:
    modules: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.append(node.module)
            modules.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


def _source(module: str) -> Path | None:
    """The file of a project module (a package's __init__.py), None outside the project."""
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _reachable(start: list[Path]) -> dict[Path, list[str]]:
    """Every project file reached by following imports, with the modules each one imports."""
    seen: dict[Path, list[str]] = {}
    pending = list(start)
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen[path] = _imports(path)
        for module in seen[path]:
            parts = module.split(".")
            # importing a.b.c runs a/__init__.py and a/b/__init__.py too
            for depth in range(1, len(parts) + 1):
                found = _source(".".join(parts[:depth]))
                if found is not None and found not in seen:
                    pending.append(found)
    return seen


def _forbidden(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in FORBIDDEN)


def test_checklist_reaches_nothing_of_the_parser() -> None:
    files = sorted(CHECKLIST.rglob("*.py"))
    assert len(files) > 10, "the checklist package was not found"
    reached = _reachable(files)
    offenders = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path, modules in reached.items()
        for module in modules
        if _forbidden(module)
    ]
    assert offenders == []
    # The walk really follows imports into the rest of the project (the semantic model at least).
    assert ROOT / "backend" / "domain" / "language" / "semantic.py" in reached


def test_checklist_code_does_not_name_the_parser() -> None:
    offenders = [
        f"{path.relative_to(ROOT)} mentions {name}"
        for path in sorted(CHECKLIST.rglob("*.py"))
        for name in FORBIDDEN_TEXT
        if name in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


def test_the_walk_catches_an_import_of_the_parser(tmp_path: Path) -> None:
    # The rule must be able to fail: a module importing the parser is reported.
    module = tmp_path / "bad.py"
    module.write_text(
        "from backend.domain.language.parser import parse\nimport backend.domain.language.qst\n"
    )
    modules = _reachable([module])[module]
    assert [name for name in modules if _forbidden(name)] == [
        "backend.domain.language.parser",
        "backend.domain.language.parser.parse",
        "backend.domain.language.qst",
    ]
