"""Errors of the LLM roles, each with a message an analyst or an operator can act on."""

from __future__ import annotations


class LlmError(Exception):
    """Base class; `code` is a stable machine-readable name, `str()` the human message."""

    code = "llm_error"


class LlmConfigurationError(LlmError):
    """A setting is missing or malformed (names the environment variable to fix)."""

    code = "llm_configuration"


class LlmUnavailable(LlmError):
    """The endpoint could not be reached, timed out, or refused the request."""

    code = "llm_unavailable"


class LlmOutputError(LlmError):
    """The model kept answering with output we cannot use, after every allowed retry."""

    code = "llm_output"


class LlmPromptTooLarge(LlmError):
    """The prompt would not fit the role's token budget, so it was not sent."""

    code = "llm_prompt_too_large"
