"""The question's language: every readable text of a run (checks, findings, warnings) is written in it."""

from __future__ import annotations

import re
from typing import Literal

Lang = Literal["zh", "en"]

_CJK = re.compile(r"[\u4e00-\u9fff]")


def language_of(question: str) -> Lang:
    return "zh" if _CJK.search(question) else "en"


def says(lang: Lang, zh: str, en: str) -> str:
    return zh if lang == "zh" else en
