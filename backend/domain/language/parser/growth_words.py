"""The rate of a report figure's growth said as a noun (增速, 增幅, 增长率) after the figure and
its 同比 / 环比: 营业收入同比增幅超过20% is the year-on-year growth rate compared (read by `compare`),
单季营收环比增速最高 the quarter-on-quarter growth ranked. A ranking by 环比 growth (增速最高,
增长最快) ranks the quarter's own figure against the quarter before, as 环比增长超过20% compares it;
a growth word after any other figure is left to refuse. The rate's 同比 said again before it
(year-over-year revenue growth) is the rate; a named stock's rate + 增长 + 多少 (宁德时代营收同比增长了多少)
asks the rate itself, never how many stocks grew; with no stock named it is refused."""

from __future__ import annotations

from backend.domain.language.ir import Scope
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.errors import NotUnderstood
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
    if token.kind == "yoy" and _is_rate(tokens, i + 1):  # year-over-year revenue growth: 同比 said again
        rate = tokens[i + 1]
        return 2, [Token("metric", rate.value, f"{token.text} {rate.text}", token.start, rate.extra)]
    if _is_rate(tokens, i) and kind_at(tokens, i + 1) == "growth_rate":
        said = f"{token.text}{tokens[i + 1].text}"
        return 2, [Token("metric", token.value, said, token.start, token.extra)]
    if _is_rate(tokens, i) and _how_much_grew(tokens, i + 1):
        said = "".join(word.text for word in tokens[i : i + 3])
        if not _names_a_stock(tokens):  # 银行股营收同比增长多少: each bank's, their average? unsaid
            raise NotUnderstood(
                f"could not place: '{tokens[i + 2].text}' ({said}: of which stocks, each or on average?)"
            )
        return 3, [Token("metric", token.value, said, token.start, token.extra)]
    if not _quarterly_figure(model, token) or kind_at(tokens, i + 1) != "qoq":
        return None
    named = kind_at(tokens, i + 2) == "growth_rate"
    ranked = kind_at(tokens, i + 2) == "up" and _rate_ranked(tokens, i + 3)
    if not named and not ranked:
        return None
    text = " ".join(word.text for word in tokens[i : i + 3])
    return 3, [Token("report_figure", token.value, text, token.start, {"window": "qoq"})]


def _is_rate(tokens: list[Token], k: int) -> bool:
    return kind_at(tokens, k) == "metric" and tokens[k].value in GROWTH_RATES


def _how_much_grew(tokens: list[Token], k: int) -> bool:
    """增长 [了] 多少 said together: how much it grew (增长的有多少 counts the stocks that grew)."""
    if kind_at(tokens, k) != "up" or kind_at(tokens, k + 1) != "agg" or tokens[k + 1].text != "多少":
        return False
    between = tokens[k + 1].start - tokens[k].start - len(tokens[k].text)
    return between <= len("了")


def _names_a_stock(tokens: list[Token]) -> bool:
    """A named stock is the question's scope: its own figure is asked, not a count of stocks."""
    return any(t.kind == "cond" and isinstance(t.value, Scope) and t.value.kind == "stock" for t in tokens)


def _quarterly_figure(model: SemanticModel, token: Token) -> bool:
    """A year-to-date flow, said alone or as its quarter alone (单季营收)."""
    if token.kind == "report_figure":
        return token.extra.get("window") == "single_quarter"
    metric = model.metrics.get(str(token.value)) if token.kind == "metric" else None
    return metric is not None and metric.table in QUARTERLY_TABLES


def _rate_ranked(tokens: list[Token], k: int) -> bool:
    return kind_at(tokens, k) == "super" and tokens[k].text in RATE_SUPERLATIVES
