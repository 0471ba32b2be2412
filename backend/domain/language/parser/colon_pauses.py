"""A colon before an aggregate asked: "Take the 20 largest stocks by market cap: what is their average
gain?" — the colon ends the subset and the aggregate after it is asked over that subset, as a comma
would say it (…by market cap, their average gain). Left filler, the figure before the colon would take
the aggregate word after it (market cap average). Runs on the tokens with their filler still in."""

from __future__ import annotations

from dataclasses import replace

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.defined_labels import COLONS


def colon_before_aggregate(tokens: list[Token]) -> list[Token]:
    """Each colon whose next word that is not filler is an aggregate made a pause (`and`, as a comma)."""
    result = list(tokens)
    for k, token in enumerate(tokens):
        if token.kind != "filler" or token.text not in COLONS:
            continue
        following = next((later for later in tokens[k + 1 :] if later.kind != "filler"), None)
        if following is not None and following.kind == "agg":
            result[k] = replace(token, kind="and", value="and")
    return result
