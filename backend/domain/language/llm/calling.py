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

from backend.domain.language.llm.budget import check_budget, estimate_request_tokens, estimate_tokens
from backend.domain.language.llm.errors import LlmOutputError, LlmUnavailable
from backend.domain.language.llm.settings import DEFAULT_PROMPT_TOKEN_BUDGET, StructuredOutputMethod
from backend.domain.language.translation import LlmCall

SchemaT = TypeVar("SchemaT", bound=BaseModel)
ResultT = TypeVar("ResultT")

_FENCE = re.compile(r"^\s*```[\w-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_FEEDBACK_QUOTE_LIMIT = 2000
# What the client raises on a body that is not a chat completion (HTML from a proxy, no choices,
# an error object with status 200): JSON, key and type errors from the OpenAI client and LangChain.
_MALFORMED_ANSWER = (ValueError, TypeError, LookupError)
_TIMEOUTS = (openai.APITimeoutError, httpx.TimeoutException, TimeoutError)
_MAX_RETRY_DELAY_S = 10.0
_TRANSPORT_ERRORS = (openai.APIError, httpx.HTTPError, TimeoutError, ConnectionError, *_MALFORMED_ANSWER)


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
        prompt_token_budget: int = DEFAULT_PROMPT_TOKEN_BUDGET,
    ) -> None:
        self.role = role
        self.model = model
        self.method = method
        self.max_retries = max_retries
        self.prompt_token_budget = prompt_token_budget

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
            # Checked before every request: a server over its context answers 400, or (Ollama)
            # silently cuts the prompt, so an oversized prompt is never sent.
            check_budget(self.role, _texts(conversation), schema, self.prompt_token_budget)
            started = time.perf_counter()
            raw = self._invoke(runnable, conversation, attempt, started, record)
            latency_ms = (time.perf_counter() - started) * 1000
            try:
                result = accept(schema.model_validate(read_payload(raw)))
            except (UnusableOutput, ValidationError) as error:
                problem = _describe_problem(error)
                record.append(self._record(raw, latency_ms, attempt, error=problem))
                room = self.prompt_token_budget - estimate_request_tokens(_texts(base), schema)
                conversation = [*base, HumanMessage(_feedback(raw, problem, room))]
                continue
            record.append(self._record(raw, latency_ms, attempt))
            return result
        raise LlmOutputError(
            f"the {self.role} role gave unusable output {self.max_retries + 1} time(s) "
            f"({describe_endpoint(self.model)} did not answer with the JSON asked for); "
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
        retries = 0
        while True:
            try:
                output = runnable.invoke(list(conversation))
                break
            except _TRANSPORT_ERRORS as error:
                if retries < self.max_retries and _worth_retrying(error):
                    retries += 1
                    time.sleep(_retry_delay(error, retries))
                    continue
                message = self._unavailable_message(error, retries)
                latency_ms = round((time.perf_counter() - started) * 1000, 3)
                record.append(
                    LlmCall(
                        self.role, _configured_name(self.model), latency_ms, attempt=attempt, error=message
                    )
                )
                raise LlmUnavailable(message) from error
        raw = output["raw"] if isinstance(output, dict) else output
        if not isinstance(raw, AIMessage):
            raise LlmOutputError(f"the {self.role} model returned {type(raw).__name__}, not a chat message")
        return raw

    def _unavailable_message(self, error: Exception, retried: int) -> str:
        server = f"the model server of the {self.role} role ({describe_endpoint(self.model)})"
        retries = f"after {retried} retr{'y' if retried == 1 else 'ies'}"
        if isinstance(error, _TIMEOUTS):
            timeout = getattr(self.model, "request_timeout", None)
            limit = f" within {timeout} s" if isinstance(timeout, int | float) else ""
            return (
                f"{server} did not answer{limit} (not retried: the server may still be working on it); "
                f"a local model on a small machine may need a larger LLM_TIMEOUT "
                f"(or LLM_{self.role.upper()}_TIMEOUT)"
            )
        if isinstance(error, openai.APIStatusError):
            return f"{server} {_status_problem(error, self.role, self.method)}" + (
                f" ({retries})" if _retried_status(error.status_code) else ""
            )
        if isinstance(error, _MALFORMED_ANSWER):
            detail = f"{type(error).__name__}: {str(error)[:200]}"
            return f"{server} answered with something that is not a chat completion ({detail})"
        return f"{server} could not be reached: {error} ({retries})"

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


def _feedback(raw: AIMessage, problem: str, room_tokens: int) -> str:
    """The rejected answer quoted back, cut so that the retry still fits the budget (when it can)."""
    # Quoted as text rather than replayed as an AI message: a replayed tool call would need a tool reply.
    previous = json.dumps(raw.tool_calls[0]["args"], ensure_ascii=False) if raw.tool_calls else raw.text
    head = "Your previous answer was:\n"
    tail = f"\n\nIt was rejected: {problem}\nAnswer the original request again, correcting this."
    # A character never costs more than one estimated token, so `room` characters always fit.
    room = room_tokens - estimate_tokens(head + tail)
    return head + previous[: max(0, min(_FEEDBACK_QUOTE_LIMIT, room))] + tail


def _texts(conversation: Sequence[BaseMessage]) -> list[str]:
    return [message.text for message in conversation]


def _retried_status(status: int) -> bool:
    """Statuses worth another try (the OpenAI client's own list); the others fail at once."""
    return status in (408, 409, 429) or status >= 500


def _worth_retrying(error: Exception) -> bool:
    """A busy or failing server, or a dropped connection. Never a timeout: a local server goes on
    with the request it was sent, so a retry would only queue behind it (3 × 60 s on 2 cores)."""
    if isinstance(error, _TIMEOUTS):
        return False
    if isinstance(error, openai.APIStatusError):
        return _retried_status(error.status_code)
    return isinstance(error, openai.APIConnectionError | httpx.TransportError | ConnectionError)


def _retry_delay(error: Exception, retry: int) -> float:
    """The server's Retry-After when it sends one (capped), else 0.5 s doubling."""
    if isinstance(error, openai.APIStatusError):
        headers = error.response.headers
        for header, divisor in (("retry-after-ms", 1000), ("retry-after", 1)):
            try:
                return min(float(headers.get(header, "")) / divisor, _MAX_RETRY_DELAY_S)
            except ValueError:
                continue
    return min(0.5 * 2 ** (retry - 1), _MAX_RETRY_DELAY_S)


_CONTEXT_WORDS = re.compile(
    r"context (?:size|length|window)|context_length_exceeded|exceed_context_size|maximum context|"
    r"too many tokens|prompt is too long|input is too long",
    re.IGNORECASE,
)
_CONTEXT_SIZE = re.compile(
    r"(?:context (?:size|length|window)\D{0,20}|maximum context length is )(\d+)", re.IGNORECASE
)
_PROMPT_SIZE = re.compile(r"(?:request|prompt|input) \((\d+) tokens\)|requested (\d+) tokens", re.IGNORECASE)


def _status_problem(error: openai.APIStatusError, role: str, method: StructuredOutputMethod) -> str:
    """What an HTTP error means for the user, with the server's own words — never a bare status."""
    status = error.status_code
    detail = _server_detail(error)
    said = f"HTTP {status}" + (f": {detail[:240]}" if detail else "")
    if status in (400, 413, 422) and _CONTEXT_WORDS.search(f"{detail} {error.body}"):
        return f"refused the prompt: {_context_overflow(error, detail)} ({said})"
    if status == 413:
        return f"refused the prompt as too large ({said})"
    if status == 429:
        return f"is busy or rate-limited ({said}); try again later"
    if status >= 500:
        return f"failed with a server error ({said})"
    if status in (401, 403):
        return f"refused the API key ({said}) — check the API key setting"
    if status == 404:
        return f"does not know the model or the path ({said}) — check the model name and the base URL"
    hint = ""
    if status in (400, 422) and method != "function_calling":
        hint = (
            f" — the server may not support structured output '{method}'; "
            f"try LLM_{role.upper()}_STRUCTURED_OUTPUT=function_calling"
        )
    return f"refused the request ({said}){hint}"


def _server_detail(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        return str(body.get("message") or "").strip()
    return str(body or "").strip()


def _context_overflow(error: openai.APIStatusError, detail: str) -> str:
    """'context length 4096 exceeded (the prompt has 4476 tokens)', from llama.cpp's fields or the text."""
    body = error.body if isinstance(error.body, dict) else {}
    size = body.get("n_ctx") or next(iter(_CONTEXT_SIZE.findall(detail)), None)
    prompt_match = _PROMPT_SIZE.search(detail)
    prompt = body.get("n_prompt_tokens") or (
        next(group for group in prompt_match.groups() if group) if prompt_match else None
    )
    text = f"context length {size} exceeded" if size else "the model's context length was exceeded"
    if prompt:
        text += f" (the prompt has {prompt} tokens)"
    return (
        text + "; lower LLM_PROMPT_TOKEN_BUDGET below the server's context, or start the server with a "
        "larger context (llama.cpp --ctx-size, Ollama num_ctx)"
    )
