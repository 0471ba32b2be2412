"""LLM roles of the language engine (LangChain chat models against OpenAI-compatible endpoints).

Public API: settings (`LlmSettings`, `RoleSettings`), `build_chat_model`, the five roles, the
`LlmTranslator` with `build_translator`, and the errors. Names are imported on first use, so
that Django settings can read `LlmSettings` without loading LangChain and the OpenAI client.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "build_chat_model": "client",
    "LlmConfigurationError": "errors",
    "LlmError": "errors",
    "LlmOutputError": "errors",
    "LlmPromptTooLarge": "errors",
    "LlmUnavailable": "errors",
    "GeneratedSql": "roles",
    "JudgeRole": "roles",
    "ParadigmAdapterRole": "roles",
    "QstParserRole": "roles",
    "ReverseQuestion": "roles",
    "ReverseQuestionWriterRole": "roles",
    "SqlGeneratorRole": "roles",
    "Verdict": "roles",
    "format_result_preview": "roles",
    "ROLES": "settings",
    "LlmSettings": "settings",
    "RoleSettings": "settings",
    "LlmRoles": "translator",
    "LlmTranslator": "translator",
    "build_roles": "translator",
    "build_translator": "translator",
}

__all__ = [
    "ROLES",
    "GeneratedSql",
    "JudgeRole",
    "LlmConfigurationError",
    "LlmError",
    "LlmOutputError",
    "LlmPromptTooLarge",
    "LlmRoles",
    "LlmSettings",
    "LlmTranslator",
    "LlmUnavailable",
    "ParadigmAdapterRole",
    "QstParserRole",
    "ReverseQuestion",
    "ReverseQuestionWriterRole",
    "RoleSettings",
    "SqlGeneratorRole",
    "Verdict",
    "build_chat_model",
    "build_roles",
    "build_translator",
    "format_result_preview",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)


if TYPE_CHECKING:
    from backend.domain.language.llm.client import build_chat_model
    from backend.domain.language.llm.errors import (
        LlmConfigurationError,
        LlmError,
        LlmOutputError,
        LlmPromptTooLarge,
        LlmUnavailable,
    )
    from backend.domain.language.llm.roles import (
        GeneratedSql,
        JudgeRole,
        ParadigmAdapterRole,
        QstParserRole,
        ReverseQuestion,
        ReverseQuestionWriterRole,
        SqlGeneratorRole,
        Verdict,
        format_result_preview,
    )
    from backend.domain.language.llm.settings import ROLES, LlmSettings, RoleSettings
    from backend.domain.language.llm.translator import LlmRoles, LlmTranslator, build_roles, build_translator
