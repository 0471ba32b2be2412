"""Every environment variable the settings and the code read has a row in the README table.

The code is parsed, not run: `env.<type>("NAME")` / `env("NAME")` (django-environ and the LLM
settings' mapping), `os.environ.get/setdefault/pop("NAME")`, `os.environ["NAME"]`, `"NAME" in
os.environ` and `os.getenv("NAME")` anywhere under backend/, paradigms/ and manage.py. The LLM
variables are read by computed names (`LLM_<KEY>`, `LLM_<ROLE>_<KEY>`); their roles and keys are taken
from backend/domain/language/llm/settings.py. Any other read by a computed name fails the test until
it is listed in COMPUTED_READS with the names it produces.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LLM_SETTINGS = ROOT / "backend" / "domain" / "language" / "llm" / "settings.py"
SETTINGS = ROOT / "backend" / "project" / "settings.py"
ENV_CALLS = {"get", "setdefault", "pop", "str", "int", "bool", "float", "list", "tuple", "dict", "json"}
ENV_CALLS |= {"db", "db_url", "url", "path", "cache", "cache_url", "email", "email_url", "search_url"}
ENV_CALLS |= {"bytes", "decimal", "parse_value", "get_value", "__call__"}

# Files allowed to read by computed names, and why: the names are enumerated by llm_variable_names().
COMPUTED_READS = {
    SETTINGS: "passes every LLM_* variable to LlmSettings.from_mapping",
    LLM_SETTINGS: "reads LLM_<KEY> and LLM_<ROLE>_<KEY> for the roles and keys it defines",
}


@dataclass(frozen=True)
class Read:
    name: str | None  # None: a computed name
    path: Path
    line: int

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _source_files() -> list[Path]:
    files = [ROOT / "manage.py"]
    for folder in ("backend", "paradigms"):
        files += sorted(p for p in (ROOT / folder).rglob("*.py") if "migrations" not in p.parts)
    return files


def _is_os_environ(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def _is_env(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "env"


def _constant(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _reads_in(path: Path) -> list[Read]:
    reads: list[Read] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        key: ast.expr | None = None
        is_read = False
        if isinstance(node, ast.Call):
            func = node.func
            key = node.args[0] if node.args else None
            if isinstance(func, ast.Attribute) and func.attr in ENV_CALLS:
                is_read = _is_os_environ(func.value) or _is_env(func.value)
            elif isinstance(func, ast.Attribute) and func.attr in {"items", "keys", "values"}:
                if _is_os_environ(func.value):
                    is_read, key = True, None  # iterating over the environment: a computed read
            elif _is_env(func):
                is_read = True
            elif isinstance(func, ast.Attribute) and func.attr == "getenv":
                is_read = isinstance(func.value, ast.Name) and func.value.id == "os"
        elif isinstance(node, ast.Subscript) and _is_os_environ(node.value):
            is_read, key = True, node.slice
        elif isinstance(node, ast.Compare) and any(_is_os_environ(c) for c in node.comparators):
            is_read, key = True, node.left
        if is_read:
            reads.append(Read(_constant(key), path, getattr(node, "lineno", 0)))
    return reads


def _llm_literal(name: str) -> object:
    """A module-level constant of the LLM settings (ROLES, _FIELD_DEFAULTS), read without importing."""
    for node in ast.parse(LLM_SETTINGS.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
            return ast.literal_eval(node.value)
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == name and node.value:
            return ast.literal_eval(node.value)
    raise AssertionError(f"{LLM_SETTINGS.relative_to(ROOT)} no longer defines {name}: update this test")


def llm_keys() -> list[str]:
    keys = _llm_literal("_FIELD_DEFAULTS")
    assert isinstance(keys, dict)
    return [str(key) for key in keys]


def llm_variable_names() -> set[str]:
    roles = _llm_literal("ROLES")
    assert isinstance(roles, tuple)
    names = {"LLM_PROVIDER"} | {f"LLM_{key}" for key in llm_keys()}
    return names | {f"LLM_{str(role).upper()}_{key}" for role in roles for key in llm_keys()}


def variables_read() -> tuple[set[str], list[Read]]:
    """Names read by the code, and the computed reads found outside COMPUTED_READS."""
    names: set[str] = set()
    unexplained: list[Read] = []
    for path in _source_files():
        for read in _reads_in(path):
            if read.name is not None:
                names.add(read.name)
            elif path not in COMPUTED_READS:
                unexplained.append(read)
    return names | llm_variable_names(), unexplained


@dataclass(frozen=True)
class Row:
    names: tuple[str, ...]
    default: str
    meaning: str


def readme_rows() -> list[Row]:
    text = README.read_text(encoding="utf-8")
    start = text.index("### Environment variables")
    section = text[start : text.find("\n## ", start) if "\n## " in text[start:] else len(text)]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        assert len(cells) == 3, f"README environment table: expected 3 cells in {line!r}"
        rows.append(Row(tuple(re.findall(r"`([A-Z][A-Z0-9_<>]*)`", cells[0])), cells[1], cells[2]))
    return rows


def _documented(name: str, rows: list[Row]) -> bool:
    for row in rows:
        for documented in row.names:
            pattern = re.escape(documented).replace(re.escape("<KEY>"), "[A-Z0-9_]+")
            if re.fullmatch(pattern, name):
                return True
    return False


def test_every_variable_read_has_a_row_in_the_readme_table() -> None:
    read, _ = variables_read()
    rows = readme_rows()
    missing = sorted(name for name in read if not _documented(name, rows))
    assert not missing, (
        f"environment variables read by the code but missing from the README table "
        f"(README.md, '### Environment variables'): {', '.join(missing)}"
    )


def test_no_variable_is_read_by_an_unlisted_computed_name() -> None:
    _, unexplained = variables_read()
    assert not unexplained, (
        "environment read by a computed name (document the names in the README table and list the file "
        "in COMPUTED_READS of this test): " + ", ".join(read.where() for read in unexplained)
    )


def test_table_rows_are_complete_and_unique() -> None:
    rows = readme_rows()
    names = [name for row in rows for name in row.names]
    assert len(names) == len(set(names)), "a variable has two rows in the README table"
    for row in rows:
        assert row.names and row.default and row.meaning, f"incomplete README table row: {row}"
    # The per-role rows (LLM_<ROLE>_<KEY>) refer to the shared rows for the meaning of each key.
    for key in llm_keys():
        assert f"LLM_{key}" in names, f"LLM_{key} needs its own row"


def test_the_scanner_sees_the_known_reads(tmp_path: Path) -> None:
    """Guards the parser itself: if these stop being found, the test above proves nothing."""
    read, _ = variables_read()
    assert {
        "CLICKHOUSE_URL",
        "DATABASE_URL",
        "REDIS_URL",
        "DJANGO_SECRET_KEY",
        "DJANGO_SETTINGS_MODULE",
        "QUERY_MAX_RESULT_ROWS",
        "LLM_PROVIDER",
        "LLM_STRUCTURED_OUTPUT",
        "LLM_QST_PARSER_MODEL",
        "LLM_REVERSE_QUESTION_WRITER_BASE_URL",
    } <= read
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os\nos.environ.get('A')\nos.environ['B']\nos.getenv('C')\n'D' in os.environ\n"
        "env.int('E', default=1)\nenv('F')\nos.environ.setdefault('G', 'x')\nos.environ.get(name)\n"
        "dict(os.environ.items())\nsubprocess_env = {**os.environ}\n",
        encoding="utf-8",
    )
    found = sorted(read.name or "?" for read in _reads_in(sample))
    assert found == ["?", "?", "A", "B", "C", "D", "E", "F", "G"]
