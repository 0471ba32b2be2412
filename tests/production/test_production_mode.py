"""VERISCREEN_PRODUCTION=1: `check --deploy` is clean, and the default secret key or debug refuses to start.

Each case is a fresh `manage.py` process configured only by its environment, as production is.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.production.services import subprocess_environment

ROOT = Path(__file__).resolve().parents[2]
SECURITY_WARNINGS = ("security.W004", "security.W008", "security.W009", "security.W012", "security.W016")


def _manage(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = subprocess_environment(
        VERISCREEN_DATA_DIR=str(tmp_path),
        DATABASE_URL=f"sqlite:///{tmp_path / 'orm.sqlite3'}",
        DJANGO_ALLOWED_HOSTS="veriscreen.example.com",
        **env,
    )
    for name in ("REDIS_URL", "DJANGO_DEBUG", "DJANGO_SECRET_KEY", "VERISCREEN_PRODUCTION"):
        if name not in env:
            environment.pop(name, None)
    command = [sys.executable, "manage.py", *args]
    return subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=240)


def test_check_deploy_is_clean_in_production(tmp_path: Path) -> None:
    done = _manage(
        tmp_path, "check", "--deploy", VERISCREEN_PRODUCTION="1", DJANGO_SECRET_KEY=secrets.token_urlsafe(50)
    )
    assert done.returncode == 0, done.stderr
    assert "System check identified no issues" in done.stdout


def test_without_the_production_flag_check_deploy_names_what_it_turns_on(tmp_path: Path) -> None:
    done = _manage(tmp_path, "check", "--deploy", DJANGO_SECRET_KEY="short")
    for warning in SECURITY_WARNINGS:
        assert warning in done.stderr


@pytest.mark.parametrize(
    ("env", "refusal"),
    [
        ({}, "VERISCREEN_PRODUCTION=1 refuses the default DJANGO_SECRET_KEY: set a long random one"),
        ({"DJANGO_SECRET_KEY": ""}, "VERISCREEN_PRODUCTION=1 refuses the default DJANGO_SECRET_KEY"),
        (
            {"DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "DJANGO_DEBUG": "1"},
            "VERISCREEN_PRODUCTION=1 refuses DJANGO_DEBUG=1",
        ),
    ],
)
def test_the_server_refuses_to_start_in_one_line(tmp_path: Path, env: dict[str, str], refusal: str) -> None:
    done = _manage(tmp_path, "serve", "--port", "0", VERISCREEN_PRODUCTION="1", **env)
    assert done.returncode == 1
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith(refusal)
