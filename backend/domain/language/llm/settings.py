"""Per-role LLM settings, read from an environment-like mapping (no Django, so tests need none).

Every role falls back to the shared `LLM_*` defaults and may override each of them with
`LLM_<ROLE>_*`, e.g. `LLM_QST_PARSER_MODEL` for the small structural parser of the main seed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar, cast, get_args

from backend.domain.language.llm.errors import LlmConfigurationError
from backend.domain.language.translation import OnFailure

Provider = Literal["builtin", "openai"]
StructuredOutputMethod = Literal["function_calling", "json_schema", "json_mode"]

ROLES = ("sql_generator", "qst_parser", "paradigm_adapter", "reverse_question_writer", "judge")

# Shared defaults; the keys are the suffixes of LLM_<KEY> and LLM_<ROLE>_<KEY>.
_FIELD_DEFAULTS = {
    "BASE_URL": "",
    "MODEL": "",
    "API_KEY": "",
    "TIMEOUT": "60",
    "MAX_RETRIES": "2",
    "TEMPERATURE": "0",
    "STRUCTURED_OUTPUT": "function_calling",
    # Estimated prompt tokens (budget.py): a 4,096-token context, the default of local servers,
    # minus room for the answer.
    "PROMPT_TOKEN_BUDGET": "3000",
    "ON_FAILURE": "",  # empty: the role's own default (_ON_FAILURE_DEFAULTS)
}
# A generator that fails leaves the built-in engine's answer; a check role that fails leaves its
# point undecided, so that an answer is never verified on the word of a role that did not answer.
_ON_FAILURE_DEFAULTS: dict[str, OnFailure] = {
    "sql_generator": "builtin",
    "qst_parser": "builtin",
    "paradigm_adapter": "builtin",
    "reverse_question_writer": "fail",
    "judge": "fail",
}

T = TypeVar("T")

DEFAULT_PROMPT_TOKEN_BUDGET = 3000  # _FIELD_DEFAULTS["PROMPT_TOKEN_BUDGET"], as a number


@dataclass(frozen=True)
class RoleSettings:
    """How to reach the model of one role. `base_url` empty means the client's own default."""

    role: str
    base_url: str = ""
    model: str = ""
    api_key: str = ""
    timeout_s: float = 60.0
    max_retries: int = 2
    temperature: float = 0.0
    structured_output: StructuredOutputMethod = "function_calling"
    prompt_token_budget: int = DEFAULT_PROMPT_TOKEN_BUDGET
    on_failure: OnFailure = "builtin"
    # True when the role has any LLM_<ROLE>_* variable of its own but ON_FAILURE (a dedicated
    # endpoint/model).
    dedicated: bool = False

    def configuration_problem(self) -> str | None:
        """Why this role cannot call a model as configured, naming the variables to set; None if it can."""
        prefix = f"LLM_{self.role.upper()}_"
        if not self.model:
            return f"no model for the {self.role} role: set LLM_MODEL or {prefix}MODEL"
        if not self.api_key and not self.base_url:
            return (
                f"the {self.role} role would call the default OpenAI endpoint without a key: "
                f"set LLM_API_KEY (or {prefix}API_KEY) or a base URL (LLM_BASE_URL or {prefix}BASE_URL)"
            )
        return None

    def __repr__(self) -> str:  # never print the key into logs or traces
        key = "set" if self.api_key else "unset"
        return (
            f"RoleSettings(role={self.role!r}, base_url={self.base_url!r}, model={self.model!r}, "
            f"api_key=<{key}>, timeout_s={self.timeout_s}, max_retries={self.max_retries}, "
            f"temperature={self.temperature}, structured_output={self.structured_output!r}, "
            f"prompt_token_budget={self.prompt_token_budget}, on_failure={self.on_failure!r})"
        )


@dataclass(frozen=True)
class LlmSettings:
    provider: Provider
    roles: Mapping[str, RoleSettings]

    @property
    def uses_llm(self) -> bool:
        return self.provider != "builtin"

    def role(self, name: str) -> RoleSettings:
        try:
            return self.roles[name]
        except KeyError:
            raise LlmConfigurationError(
                f"unknown LLM role {name!r}; known roles: {', '.join(ROLES)}"
            ) from None

    @classmethod
    def from_mapping(cls, env: Mapping[str, str]) -> LlmSettings:
        provider = env.get("LLM_PROVIDER", "builtin").strip().lower() or "builtin"
        if provider not in get_args(Provider):
            raise LlmConfigurationError(
                f"LLM_PROVIDER={provider!r} is not supported; use one of {', '.join(get_args(Provider))}"
            )
        roles = {role: _role_settings(role, env) for role in ROLES}
        if provider != "builtin":  # fail at start-up, not on the first question
            problems = [problem for role in roles.values() if (problem := role.configuration_problem())]
            if problems:
                raise LlmConfigurationError(f"LLM_PROVIDER={provider}: " + "; ".join(problems))
        return cls(provider=cast(Provider, provider), roles=roles)


def _role_settings(role: str, env: Mapping[str, str]) -> RoleSettings:
    prefix = f"LLM_{role.upper()}_"

    def read(key: str, parse: Callable[[str], T]) -> T:
        name = prefix + key if (prefix + key) in env else f"LLM_{key}"
        raw = env.get(name, _FIELD_DEFAULTS[key]).strip()
        try:
            return parse(raw)
        except ValueError as error:
            raise LlmConfigurationError(f"{name}={raw!r} is invalid: {error}") from None

    on_failure: OnFailure | None = read("ON_FAILURE", _on_failure)
    return RoleSettings(
        role=role,
        base_url=read("BASE_URL", str),
        model=read("MODEL", str),
        api_key=read("API_KEY", str),
        timeout_s=read("TIMEOUT", _positive_float),
        max_retries=read("MAX_RETRIES", _non_negative_int),
        temperature=read("TEMPERATURE", float),
        structured_output=read("STRUCTURED_OUTPUT", _method),
        prompt_token_budget=read("PROMPT_TOKEN_BUDGET", _positive_int),
        on_failure=on_failure or _ON_FAILURE_DEFAULTS[role],
        # What to do on failure is not an endpoint of its own.
        dedicated=any(name.startswith(prefix) and name != f"{prefix}ON_FAILURE" for name in env),
    )


def _positive_float(raw: str) -> float:
    value = float(raw)
    if value <= 0:
        raise ValueError("must be greater than 0")
    return value


def _positive_int(raw: str) -> int:
    value = int(raw)
    if value <= 0:
        raise ValueError("must be greater than 0")
    return value


def _non_negative_int(raw: str) -> int:
    value = int(raw)
    if value < 0:
        raise ValueError("must be 0 or more")
    return value


def _on_failure(raw: str) -> OnFailure | None:
    if not raw:
        return None
    if raw not in get_args(OnFailure):
        raise ValueError(f"use one of {', '.join(get_args(OnFailure))}")
    return cast(OnFailure, raw)


def _method(raw: str) -> StructuredOutputMethod:
    if raw not in get_args(StructuredOutputMethod):
        raise ValueError(f"use one of {', '.join(get_args(StructuredOutputMethod))}")
    return cast(StructuredOutputMethod, raw)
