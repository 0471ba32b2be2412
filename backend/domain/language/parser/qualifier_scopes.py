"""A qualifier in brackets right after one of several aggregates (平均PE TTM（剔除亏损股）和平均市净率;
average P/E (excluding loss-makers) and average P/B) restricts that aggregate's stocks only: the
other aggregates are over every stock of the question. Brackets are filler, so where they stood is taken
from the filler before it is dropped; run on the tokens the grammar passes leave, before the assembly."""

from __future__ import annotations

from backend.domain.language.ir import Not
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import synthetic

OPENING, CLOSING = "(", ")"


def bracket_spans(every: list[Token]) -> tuple[tuple[int, int], ...]:
    """(opening, closing) offsets of each pair of brackets among the question's tokens, filler in."""
    spans: list[tuple[int, int]] = []
    opened: int | None = None
    for token in every:
        if token.kind != "filler":
            continue
        if token.text == OPENING:
            opened = token.start
        elif token.text == CLOSING and opened is not None:
            spans.append((opened, token.start))
            opened = None
    return tuple(spans)


def scope_bracketed_qualifiers(tokens: list[Token], spans: tuple[tuple[int, int], ...]) -> list[Token]:
    """Each aggregate followed by an exclusion that fills a pair of brackets, when the question asks
    for several aggregates: that aggregate over the stocks the exclusion keeps (its `where`)."""
    if sum(token.kind == "aggmetric" for token in tokens) < 2:
        return tokens  # one aggregate: the qualifier is the question's, as it reads everywhere else
    result: list[Token] = []
    k = 0
    while k < len(tokens):
        token = tokens[k]
        if _qualified_at(tokens, k, spans):
            where = Not(tokens[k + 2].value)
            result.append(synthetic("aggmetric", token.value, tokens[k : k + 3], **token.extra, where=where))
            k += 3
            continue
        result.append(token)
        k += 1
    return result


def _qualified_at(tokens: list[Token], k: int, spans: tuple[tuple[int, int], ...]) -> bool:
    """aggmetric ( not cond ): the brackets open after the aggregate and hold the exclusion alone."""
    if k + 2 >= len(tokens) or [t.kind for t in tokens[k : k + 3]] != ["aggmetric", "not", "cond"]:
        return False
    if tokens[k].extra.get("where") is not None:
        return False
    after = tokens[k + 3].start if k + 3 < len(tokens) else None
    return any(
        tokens[k].start < opening < min(tokens[k + 1].start, tokens[k + 2].start)
        and max(tokens[k + 1].start, tokens[k + 2].start) < closing
        and (after is None or closing < after)
        for opening, closing in spans
    )
