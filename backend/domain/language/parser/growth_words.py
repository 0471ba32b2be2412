"""The rate of a report figure's growth said as a noun (增速, 增幅, 增长率) after the figure and
its 同比 / 环比: 营业收入同比增幅超过20% is the year-on-year growth rate compared (read by `compare`),
单季营收环比增速最高 the quarter-on-quarter growth ranked. A ranking by 环比 growth (增速最高,
增长最快) ranks the quarter's own figure against the quarter before, as 环比增长超过20% compares it;
a growth word after any other figure is left to refuse."""

from __future__ import annotations

from backend.domain.language.lexicon import Token
from backend.domain.language.parser.rewriting import Match, kind_at
from backend.domain.language.semantic import SemanticModel

GROWTH_RATES = {"netprofit_yoy", "or_yoy"}  # figures that are themselves a growth rate
QUARTERLY_TABLES = {"income"}  # flows stored year to date, whose quarters alone can be compared
# superlatives that rank by how large a rate is; 最多 / 最少 may mean the amount added, not the rate
RATE_SUPERLATIVES = {"最高", "最高的", "最快", "最大", "最低", "最慢", "最小"}


def growth_rate_named(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """营收同比增速 (a growth rate word) + 增速: the rate said again; a report figure (单季营收,
    营收) + 环比 + 增速, or + 增长 before a ranking of the rate: the figure's quarter-on-quarter growth
    (`report_figure` window qoq), read by the comparison and ranking rules."""
    token = tokens[i]
    if token.kind == "metric" and token.value in GROWTH_RATES and kind_at(tokens, i + 1) == "growth_rate":
        said = f"{token.text}{tokens[i + 1].text}"
        return 2, [Token("metric", token.value, said, token.start, token.extra)]
    if not _quarterly_figure(model, token) or kind_at(tokens, i + 1) != "qoq":
        return None
    named = kind_at(tokens, i + 2) == "growth_rate"
    ranked = kind_at(tokens, i + 2) == "up" and _rate_ranked(tokens, i + 3)
    if not named and not ranked:
        return None
    text = " ".join(word.text for word in tokens[i : i + 3])
    return 3, [Token("report_figure", token.value, text, token.start, {"window": "qoq"})]


def _quarterly_figure(model: SemanticModel, token: Token) -> bool:
    """A year-to-date flow, said alone or as its quarter alone (单季营收)."""
    if token.kind == "report_figure":
        return token.extra.get("window") == "single_quarter"
    metric = model.metrics.get(str(token.value)) if token.kind == "metric" else None
    return metric is not None and metric.table in QUARTERLY_TABLES


def _rate_ranked(tokens: list[Token], k: int) -> bool:
    return kind_at(tokens, k) == "super" and tokens[k].text in RATE_SUPERLATIVES
