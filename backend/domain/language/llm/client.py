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
    problem = settings.configuration_problem()
    if problem is not None:
        raise LlmConfigurationError(problem)
    return ChatOpenAI(
        model=settings.model,
        base_url=settings.base_url or None,
        api_key=SecretStr(settings.api_key or _KEY_FOR_SERVERS_WITHOUT_AUTH),
        timeout=settings.timeout_s,
        # Retries are the caller's (calling.py), which never retries a timeout.
        max_retries=0,
        temperature=settings.temperature,
    )
