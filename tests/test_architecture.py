"""The domain packages must stay free of Django so that they run and test on their own."""

import ast
from pathlib import Path

DOMAIN = Path(__file__).resolve().parent.parent / "backend" / "domain"
FORBIDDEN = ("django", "rest_framework", "channels", "celery", "backend.apps", "backend.project", "paradigms")


def _imported_modules(source: str) -> list[str]:
    modules: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.append(node.module)
    return modules


def test_domain_packages_do_not_import_web_frameworks() -> None:
    offenders = []
    files = sorted(DOMAIN.rglob("*.py"))
    assert files, "no domain modules found"
    for path in files:
        for module in _imported_modules(path.read_text(encoding="utf-8")):
            if any(module == name or module.startswith(name + ".") for name in FORBIDDEN):
                offenders.append(f"{path.relative_to(DOMAIN)} imports {module}")
    assert offenders == []
