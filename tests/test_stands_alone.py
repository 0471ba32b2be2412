"""The repository stands alone: no tracked file points at a folder beside or above it (the old shared
design notes and data folder) or at the machine it was written on. Runtime inputs that are not
ours are passed by path (e.g. `equiv_bench --data PATH`), never read from such a place."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Written in pieces so that this file does not match itself.
OUTSIDE = re.compile(r"\.\./" + r"shared|/" + r"work/(?:wt|main|shared)\b|\.\./\.\./" + r"shared")


def _tracked_text_files() -> list[Path]:
    listed = (
        subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
        .stdout.decode("utf-8")
        .split("\0")
    )
    return [ROOT / name for name in listed if name and (ROOT / name).is_file()]


def test_no_tracked_file_points_outside_the_repository() -> None:
    files = _tracked_text_files()
    assert len(files) > 100 and ROOT / "README.md" in files
    offending = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary (images, fonts)
        for number, line in enumerate(text.splitlines(), start=1):
            if OUTSIDE.search(line):
                offending.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert not offending, "references outside the repository:\n" + "\n".join(offending)


def test_the_pattern_catches_what_it_is_for() -> None:
    up, shared = "../", "shared"
    for line in (f"see {up}{shared}/DESIGN.md", f"Path('{up}{shared}/data')", "/" + "work/main/var"):
        assert OUTSIDE.search(line), line
    assert not OUTSIDE.search("docs/design.md, shared screens, ../frontend")
