"""How many tokens a prompt takes, estimated without a tokenizer, and the role's budget for it.

LangChain's `get_num_tokens()` downloads a tokenizer file on first use, so it is never called: the
estimate is character-based and errs on the high side for the models people run locally. An ASCII
letter or symbol costs a third of a token (English and SQL average 3.5-4 characters a token);
a digit costs a whole one (Qwen and Llama 3 tokenizers split numbers into single digits); any other
character — CJK above all, but also dashes and arrows — costs at least one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel

from backend.domain.language.llm.errors import LlmPromptTooLarge

# The chat template's role markers and the server's tool-calling preamble (Qwen's "# Tools …" block
# is ~150 tokens), which the prompt text does not show but the context must hold.
TEMPLATE_OVERHEAD_TOKENS = 200


def estimate_tokens(text: str) -> int:
    ascii_other = digits = wide = 0
    for char in text:
        if char.isascii():
            if char.isdigit():
                digits += 1
            else:
                ascii_other += 1
        else:
            wide += 1
    return wide + digits + math.ceil(ascii_other / 3)


def estimate_request_tokens(messages: Sequence[str], schema: type[BaseModel]) -> int:
    """Messages, the output schema sent beside them and the template. The schema is counted as the
    tool definition the client sends (a response format carries about the same)."""
    schema_text = json.dumps(convert_to_openai_tool(schema), ensure_ascii=False)
    return (
        sum(estimate_tokens(text) for text in messages)
        + estimate_tokens(schema_text)
        + (TEMPLATE_OVERHEAD_TOKENS)
    )


def check_budget(role: str, messages: Sequence[str], schema: type[BaseModel], budget: int) -> None:
    """LlmPromptTooLarge, naming the size and the budget, when the request would exceed the budget."""
    size = estimate_request_tokens(messages, schema)
    if size > budget:
        characters = sum(len(text) for text in messages)
        raise LlmPromptTooLarge(
            f"the prompt for the {role} role does not fit its token budget: about {size:,} tokens "
            f"({characters:,} characters) against a budget of {budget:,} "
            f"(LLM_PROMPT_TOKEN_BUDGET or LLM_{role.upper()}_PROMPT_TOKEN_BUDGET); it was not sent. "
            "Ask a shorter question, or raise the budget if the model server's context allows it."
        )
