"""LLM roles of the language engine (LangChain chat models against OpenAI-compatible endpoints).

Public API: settings (`LlmSettings`, `RoleSettings`), `build_chat_model`, the five roles, the
`LlmTranslator` with `build_translator`, and the errors.
"""

from backend.domain.language.llm.client import build_chat_model
from backend.domain.language.llm.errors import LlmConfigurationError, LlmError, LlmOutputError, LlmUnavailable
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

__all__ = [
    "ROLES",
    "GeneratedSql",
    "JudgeRole",
    "LlmConfigurationError",
    "LlmError",
    "LlmOutputError",
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
