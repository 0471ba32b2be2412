"""One structured call to a chat model: prompt → validated output, with retries and a recorded trace.

The structured-output method is a setting because many OpenAI-compatible servers reject
`json_schema` (DESIGN.md §2). Whatever the method, the answer is read from the raw message: the
first tool call when there is one, else a JSON object in the text. The same reader serves models
that cannot bind tools at all (they only see the JSON instructions in the prompt).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import httpx
import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from pydantic import BaseModel, ValidationError

from backend.domain.language.llm.errors import LlmOutputError, LlmUnavailable
from backend.domain.language.llm.settings import StructuredOutputMethod
from backend.domain.language.translation import LlmCall

SchemaT = TypeVar("SchemaT", bound=BaseModel)
ResultT = TypeVar("ResultT")

_FENCE = re.compile(r"^\s*```[\w-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_FEEDBACK_QUOTE_LIMIT = 2000
_TRANSPORT_ERRORS = (openai.APIError, httpx.HTTPError, TimeoutError, ConnectionError)


class UnusableOutput(ValueError):
    """The answer parsed but cannot be used (e.g. SQL refused by the guard); fed back to the model."""


def strip_fences(text: str) -> str:
    """Remove a surrounding Markdown code fence (```sql … ```), which models add unasked."""
    match = _FENCE.match(text)
    return (match.group(1) if match else text).strip()


def describe_endpoint(model: BaseChatModel) -> str:
    base_url = getattr(model, "openai_api_base", None)
    name = getattr(model, "model_name", None) or model._llm_type
    return f"model {name} at {base_url}" if base_url else f"model {name}"


class StructuredCaller:
    """Calls one role's model and returns validated output, or raises a clear error.

    Malformed output is retried up to `max_retries` times with the problem quoted back to the
    model; every attempt becomes one `LlmCall` in the caller's list, failures included.
    """

    def __init__(
        self,
        role: str,
        model: BaseChatModel,
        *,
        method: StructuredOutputMethod = "function_calling",
        max_retries: int = 2,
    ) -> None:
        self.role = role
        self.model = model
        self.method = method
        self.max_retries = max_retries

    def call(
        self,
        system_prompt: str,
        user_prompt: str,
        schema: type[SchemaT],
        accept: Callable[[SchemaT], ResultT],
        calls: list[LlmCall] | None = None,
    ) -> ResultT:
        record = calls if calls is not None else []
        runnable = self._structured(schema)
        base: list[BaseMessage] = [
            SystemMessage(system_prompt + "\n\n" + json_instructions(schema)),
            HumanMessage(user_prompt),
        ]
        conversation = base
        problem = ""
        for attempt in range(1, self.max_retries + 2):
            started = time.perf_counter()
            raw = self._invoke(runnable, conversation, attempt, started, record)
            latency_ms = (time.perf_counter() - started) * 1000
            try:
                result = accept(schema.model_validate(read_payload(raw)))
            except (UnusableOutput, ValidationError) as error:
                problem = _describe_problem(error)
                record.append(self._record(raw, latency_ms, attempt, error=problem))
                conversation = [*base, HumanMessage(_feedback(raw, problem))]
                continue
            record.append(self._record(raw, latency_ms, attempt))
            return result
        raise LlmOutputError(
            f"the {self.role} role gave unusable output {self.max_retries + 1} time(s); "
            f"last problem: {problem}"
        )

    def _structured(self, schema: type[BaseModel]) -> Runnable[Any, Any]:
        try:
            return self.model.with_structured_output(schema, method=self.method, include_raw=True)
        except NotImplementedError:
            return self.model  # no tool binding: the JSON instructions in the prompt carry the format

    def _invoke(
        self,
        runnable: Runnable[Any, Any],
        conversation: Sequence[BaseMessage],
        attempt: int,
        started: float,
        record: list[LlmCall],
    ) -> AIMessage:
        try:
            output = runnable.invoke(list(conversation))
        except _TRANSPORT_ERRORS as error:
            message = self._unavailable_message(error)
            latency_ms = round((time.perf_counter() - started) * 1000, 3)
            record.append(
                LlmCall(self.role, _configured_name(self.model), latency_ms, attempt=attempt, error=message)
            )
            raise LlmUnavailable(message) from error
        raw = output["raw"] if isinstance(output, dict) else output
        if not isinstance(raw, AIMessage):
            raise LlmOutputError(f"the {self.role} model returned {type(raw).__name__}, not a chat message")
        return raw

    def _unavailable_message(self, error: Exception) -> str:
        endpoint = describe_endpoint(self.model)
        retries = f"after {self.max_retries} retr{'y' if self.max_retries == 1 else 'ies'}"
        if isinstance(error, openai.APITimeoutError | httpx.TimeoutException | TimeoutError):
            timeout = getattr(self.model, "request_timeout", None)
            limit = f" within {timeout} s" if isinstance(timeout, int | float) else ""
            return f"the {self.role} LLM ({endpoint}) did not answer{limit} ({retries})"
        if isinstance(error, openai.APIStatusError):
            hint = ""
            if error.status_code in (401, 403):
                hint = " — check the API key setting"
            elif error.status_code in (400, 422) and self.method != "function_calling":
                hint = (
                    f" — the server may not support structured output '{self.method}'; "
                    f"try LLM_{self.role.upper()}_STRUCTURED_OUTPUT=function_calling"
                )
            # The client retries only these statuses; the others fail at once.
            retried = error.status_code in (408, 409, 429) or error.status_code >= 500
            tail = f" ({retries})" if retried else ""
            return f"the {self.role} LLM ({endpoint}) answered HTTP {error.status_code}{hint}{tail}"
        return f"the {self.role} LLM ({endpoint}) could not be reached: {error} ({retries})"

    def _record(self, raw: AIMessage, latency_ms: float, attempt: int, error: str | None = None) -> LlmCall:
        prompt_tokens, completion_tokens, total_tokens = reported_usage(raw)
        return LlmCall(
            role=self.role,
            model=str(raw.response_metadata.get("model_name") or _configured_name(self.model)),
            latency_ms=round(latency_ms, 3),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=total_tokens,
            attempt=attempt,
            error=error,
        )


def json_instructions(schema: type[BaseModel]) -> str:
    """The output contract as text, so that plain-text models (and json_mode) know the fields."""
    return (
        "Answer with a single JSON object (no prose, no Markdown) that matches this JSON schema:\n"
        + json.dumps(schema.model_json_schema(), ensure_ascii=False)
    )


def read_payload(message: AIMessage) -> Any:
    """The structured answer in a message: the first tool call's arguments, else JSON in the text."""
    if message.tool_calls:
        return message.tool_calls[0]["args"]
    if message.invalid_tool_calls:
        bad = message.invalid_tool_calls[0]
        raise UnusableOutput(
            f"the tool call arguments are not valid JSON: {bad.get('error') or bad.get('args')}"
        )
    refusal = message.additional_kwargs.get("refusal")
    if refusal:
        raise UnusableOutput(f"the model refused: {refusal}")
    text = strip_fences(message.text)
    if not text:
        raise UnusableOutput("the answer is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    start, end = text.find("{"), text.rfind("}")  # tolerate a sentence around the object
    if 0 <= start < end:
        try:
            return json.loads(text[start : end + 1])
        except json.JSONDecodeError:
            pass
    raise UnusableOutput(f"the answer is not a JSON object: {text[:200]!r}")


def reported_usage(message: AIMessage) -> tuple[int | None, int | None, int | None]:
    """Token counts as the endpoint reported them; None when it reported nothing (never estimated)."""
    usage = message.usage_metadata
    if usage:
        return usage.get("input_tokens"), usage.get("output_tokens"), usage.get("total_tokens")
    token_usage = message.response_metadata.get("token_usage")
    if isinstance(token_usage, dict):
        return (
            token_usage.get("prompt_tokens"),
            token_usage.get("completion_tokens"),
            token_usage.get("total_tokens"),
        )
    return None, None, None


def _configured_name(model: BaseChatModel) -> str:
    return str(getattr(model, "model_name", None) or model._llm_type)


def _describe_problem(error: Exception) -> str:
    if isinstance(error, ValidationError):
        parts = [
            f"{'.'.join(str(p) for p in item['loc']) or 'answer'}: {item['msg']}" for item in error.errors()
        ]
        return "wrong fields — " + "; ".join(parts)
    return str(error)


def _feedback(raw: AIMessage, problem: str) -> str:
    # Quoted as text rather than replayed as an AI message: a replayed tool call would need a tool reply.
    previous = json.dumps(raw.tool_calls[0]["args"], ensure_ascii=False) if raw.tool_calls else raw.text
    return (
        f"Your previous answer was:\n{previous[:_FEEDBACK_QUOTE_LIMIT]}\n\n"
        f"It was rejected: {problem}\nAnswer the original request again, correcting this."
    )
