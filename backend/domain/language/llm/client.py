"""Build the LangChain chat model of one role from its settings."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from backend.domain.language.llm.errors import LlmConfigurationError
from backend.domain.language.llm.settings import RoleSettings

# Local OpenAI-compatible servers (vLLM, Ollama, llama.cpp) ignore the key, but the client insists on one.
_KEY_FOR_SERVERS_WITHOUT_AUTH = "not-needed"


def build_chat_model(settings: RoleSettings) -> BaseChatModel:
    if not settings.model:
        variable = f"LLM_{settings.role.upper()}_MODEL"
        raise LlmConfigurationError(
            f"no model configured for the {settings.role} role: set LLM_MODEL or {variable}"
        )
    if not settings.api_key and not settings.base_url:
        raise LlmConfigurationError(
            f"the {settings.role} role would call the default OpenAI endpoint without a key: "
            f"set LLM_API_KEY (or LLM_{settings.role.upper()}_API_KEY) or a base URL"
        )
    return ChatOpenAI(
        model=settings.model,
        base_url=settings.base_url or None,
        api_key=SecretStr(settings.api_key or _KEY_FOR_SERVERS_WITHOUT_AUTH),
        timeout=settings.timeout_s,
        max_retries=settings.max_retries,
        temperature=settings.temperature,
    )
