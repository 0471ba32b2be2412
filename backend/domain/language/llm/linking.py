"""Schema linking: the part of the schema and vocabulary one question needs, as prompt text.

The whole schema with every word, industry and convention is ~11,600 characters, more than the
4,096-token context local servers start with. The linker sends only what the question names:

- metrics whose words (semantic_model.yaml) appear in the question, with their table's keys;
  derived metrics as their formula and the columns it reads;
- concepts of the catalogue (阳线, 破净, 创N日新高, 亏损 …) whose words appear: the attributes of a
  phrase's definition or the usual columns of the concept's family, and its title as a hint;
- the stored values of the industries, indexes, exchanges and boards the question names, and the
  tables the probe evidence points to;
- columns and tables written in the correction guidance and in example SQL;
- the conventions whose subject the question touches (a convention without a trigger is always
  sent), and the columns those conventions name (the yoy convention names netprofit_yoy, or_yoy).

Always there, for ~250 tokens: stock_basic but for symbol and pinyin initials (the evidence resolves
names), because 'listed before 2000' or 'per province' name its dimensions in words of any kind; and
daily's close and change, because 'today' is the last day with daily bars and 'rose', 'closed
higher', 'best performers' are said in more ways than any word list holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from backend.domain.language.catalogue import Concept, default_catalogue
from backend.domain.language.context import LanguageContext, normalize_text
from backend.domain.language.semantic import Metric
from backend.domain.market.schema import TABLES, TABLES_BY_NAME

_NUMBER = r"(?:\d+(?:\.\d+)?|[零一二两三四五六七八九十百千]+)"
# Placeholders in catalogue wording ("创N日新高", "up N days in a row", "k倍"), after lower-casing.
_PLACEHOLDER = re.compile(r"(?<![a-z])[nmk](?![a-z])")
_STOCK_COLUMNS = tuple(
    c for c in TABLES_BY_NAME["stock_basic"].column_names if c not in ("symbol", "cnspell")
)
# Column names found in one table only: written anywhere, they say which table is meant.
_UNIQUE_COLUMNS = {
    table.name: {
        column for column in table.column_names if sum(column in other.column_names for other in TABLES) == 1
    }
    for table in TABLES
}
_EVIDENCE = re.compile(r"^'(?P<mention>.*)' is the (?P<kind>\w+) (?P<value>.*)$")

_DAILY_BARS = ("open", "high", "low", "close", "pre_close", "pct_chg", "vol")
# What a catalogue family's grammar concepts read (their definitions show one example, not a meaning).
_FAMILY_COLUMNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "prices": ("daily", _DAILY_BARS),
    "returns": ("daily", _DAILY_BARS),
    "moves": ("daily", _DAILY_BARS),
    "candles": ("daily", _DAILY_BARS),
    "technical": ("daily", _DAILY_BARS),
    "breadth": ("daily", _DAILY_BARS),
    "valuation": ("daily_basic", ()),
    "reports": ("income", ("revenue", "n_income_attr_p")),
    "index": ("index_weight", ("index_code", "con_code", "weight")),
}

# When a convention of semantic_model.yaml is worth its characters: a pattern over the normalized
# question, or a table the question links. A convention missing here is always sent.
_CONVENTION_TRIGGERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "calendar_window": (r"近|最近|过去|\blast\b|\bpast\b|周|个月|weeks?\b|months?\b", ()),
    "trading_window": (rf"交易日|trading days?|sessions?|{_NUMBER} ?日|\d+ days?", ()),
    "period_gain": (r"涨幅|跌幅|累计|区间|从|以来|\bgain|\breturn|between|since|\bfrom\b", ()),
    "moving_average": (r"均线|moving average|\bma ?\d", ()),
    "n_day_high": (r"新高|新低|\bhighs?\b|\blows?\b", ()),
    "consecutive_days": (r"连续.{0,4}(?:天|日)|连涨|连跌|days? in a row|sessions? straight|streak", ()),
    "derived_precision": (r"均线|均|平均|average|mean|振幅|amplitude|涨幅|gain|倍|times", ()),
    "volume_surge": (r"放量|surge|volume spike", ()),
    "annual_figures": (r"年报|年度|annual|fiscal", ("income", "fina_indicator")),
    "growth_streak": (r"连续.{0,4}年|years? in a row|every year|每年", ()),
    "yoy": (r"同比|yoy|year (?:over|on) year", ()),  # normalize_text made year-on-year 'year on year'
    "index_membership": (r"成分|constituent|member", ("index_weight",)),
    "numbers": (
        rf"{_NUMBER} ?(?:[亿万千倍元块手股%]|x\b|times|percent|pct|[mb]n?\b|[mb]illion|trillion)|"
        r"[一二两三四五六七八九]成|between|之间|超过|大于|小于|低于|高于|以上|以下|不到|"
        r"above|below|over|under|more than|less than",
        (),
    ),
    "ties_and_superlatives": (
        r"最|前|top|highest|lowest|largest|smallest|biggest|most|least|best|worst|rank",
        (),
    ),
}


@dataclass
class LinkedSchema:
    """What one question needs from the schema; `text()` is the prompt's schema section."""

    context: LanguageContext
    columns: dict[str, list[str]] = field(default_factory=dict)  # table → columns, schema order kept
    metrics: dict[str, str] = field(default_factory=dict)  # metric key → the question's word for it
    derived: list[Metric] = field(default_factory=list)
    values: list[str] = field(default_factory=list)  # "'上交所' → stock_basic.exchange = 'SSE'"
    concepts: list[Concept] = field(default_factory=list)
    conventions: list[str] = field(default_factory=list)
    units: list[str] = field(default_factory=list)

    @property
    def tables(self) -> list[str]:
        return [table.name for table in TABLES if table.name in self.columns]

    def add(self, table: str, *columns: str) -> None:
        known = TABLES_BY_NAME[table].column_names
        wanted = set(self.columns.get(table, [])) | {c for c in columns if c in known}
        self.columns[table] = [name for name in known if name in wanted]

    def add_table(self, table: str) -> None:
        """A table with its keys and dates, the columns any query on it filters or joins by."""
        spec = TABLES_BY_NAME[table]
        self.add(table, *spec.key, *(c.name for c in spec.columns if c.type.endswith("Date")))

    def text(self, *, terse: bool = False) -> str:
        """The schema section; `terse` leaves out concept hints and all but the essential conventions."""
        model = self.context.model
        lines = [
            f"ClickHouse database `{self.context.database}`. "
            f"Latest trading day in the data: {self.context.latest_trade_date.isoformat()}.",
            "Only the tables and columns this question needs are listed.",
        ]
        metric_by_column = {(m.table, m.column): m for m in model.metrics.values() if not m.negated}
        for table in self.tables:
            spec = TABLES_BY_NAME[table]
            lines.append(f"TABLE {self.context.database}.{table} — {model.tables.get(table, spec.comment)}")
            for name in self.columns[table]:
                column = spec.column(name)
                metric = metric_by_column.get((table, name))
                detail = column.comment
                if metric is not None:
                    detail = f"{metric.meaning}; stored in {metric.stored_unit.name}"
                    word = self.metrics.get(metric.key)
                    detail += f" (the question's '{word}')" if word else ""
                lines.append(f"  {name} {column.type} — {detail}")
        if self.derived:
            lines.append("Derived measures (not stored; compute them from the columns above):")
            lines += [f"  {m.key} = {m.expression} — {m.meaning}" for m in self.derived]
        if self.values:
            lines.append("Values named in the question, as stored:")
            lines += [f"  {value}" for value in self.values]
        if self.concepts and not terse:
            lines.append("Concepts named in the question:")
            lines += [f"  {concept.title}" for concept in self.concepts]
        if self.units:
            lines.append("Units: " + ", ".join(self.units))
        conventions = [key for key in self.conventions if not terse or key not in _CONVENTION_TRIGGERS]
        if conventions:
            lines.append("Conventions:")
            lines += [f"  - {key}: {model.conventions[key]}" for key in conventions]
        return "\n".join(lines)


def link_schema(
    question: str,
    context: LanguageContext,
    *,
    evidence: Sequence[str] = (),
    examples: Sequence[tuple[str, str]] = (),
    guidance: str | None = None,
) -> LinkedSchema:
    text = normalize_text(question)
    linked = LinkedSchema(context)
    linked.add("stock_basic", *_STOCK_COLUMNS)
    linked.add_table("daily")
    linked.add("daily", "close", "pct_chg")
    _link_metrics(text, linked)
    _link_concepts(text, linked)
    _link_vocabulary(text, linked)
    for item in evidence:
        _link_evidence(item, linked)
    sql_texts = [sql for _question, sql in examples] + ([guidance] if guidance else [])
    _link_identifiers(" ".join(sql_texts), linked)
    linked.units = [
        f"{word}={factor:g}" for word, factor in context.model.scale_units.items() if _has(text, word)
    ]
    linked.conventions = _conventions(text, linked)
    _link_identifiers(" ".join(context.model.conventions[key] for key in linked.conventions), linked)
    return linked


def _link_metrics(text: str, linked: LinkedSchema) -> None:
    for metric in linked.context.model.metrics.values():
        word = next((word for word in _longest_first(metric.words) if _has(text, word)), None)
        if word is not None:
            _add_metric(metric, linked, word)


def _add_metric(metric: Metric, linked: LinkedSchema, word: str = "") -> None:
    linked.add_table(metric.table)
    if metric.expression:
        if metric not in linked.derived:
            linked.derived.append(metric)
        linked.add(metric.table, *re.findall(r"[a-z_]+", metric.expression))
        return
    linked.add(metric.table, metric.column)
    if word and not metric.negated:
        linked.metrics.setdefault(metric.key, word)


def _link_concepts(text: str, linked: LinkedSchema) -> None:
    metrics = linked.context.model.metrics
    for concept in _catalogue_concepts():
        if concept.reads == "metric" or not any(_pattern(word, True).search(text) for word in concept.words):
            continue
        linked.concepts.append(concept)
        # A phrase's definition is its meaning; a grammar concept's is one example of its wording.
        keys = _attributes(concept.definition) if concept.reads == "phrase" else ()
        attributes = [metrics[key] for key in keys if key in metrics]
        for metric in attributes:
            _add_metric(metric, linked)
        if not attributes:
            table, columns = _FAMILY_COLUMNS[concept.family]
            linked.add_table(table)
            linked.add(table, *columns)


def _link_vocabulary(text: str, linked: LinkedSchema) -> None:
    """Named values. Once matched, a value's words are masked: the 沪 of 沪深300 or the 创业板 of
    创业板指 is not read again as an exchange or a board."""
    model = linked.context.model
    named: list[tuple[tuple[str, ...], str]] = [  # (words, the stored value as an SQL condition)
        ((name, *model.index_synonyms.get(code, ())), f"index_weight.index_code = '{code}'")
        for code, name in sorted(linked.context.indexes.items())
    ]
    for group in model.industry_groups.values():
        members = ", ".join(f"'{industry}'" for industry in group.industries)
        named.append((group.words, f"stock_basic.industry IN ({members})"))
    for industry in linked.context.industries:
        words = (industry, *model.industry_synonyms.get(industry, ()))
        named.append((words, f"stock_basic.industry = '{industry}'"))
    named += [(words, f"stock_basic.market = '{board}'") for board, words in model.boards.items()]
    named += [(words, f"stock_basic.exchange = '{code}'") for code, words in model.exchanges.items()]
    for words, condition in named:
        match = next((m for w in _longest_first(words) if (m := _pattern(w).search(text))), None)
        if match is None:
            continue
        text = text[: match.start()] + " " * len(match[0]) + text[match.end() :]
        if condition.startswith("index_weight"):
            _add_index(linked)
        linked.values.append(f"'{match[0]}' → {condition}")


def _add_index(linked: LinkedSchema) -> None:
    linked.add_table("index_weight")
    linked.add("index_weight", "index_code", "con_code", "trade_date")


def _link_evidence(item: str, linked: LinkedSchema) -> None:
    """Evidence reads "'茅台' is the stock 贵州茅台 600519.SH" (translation.Evidence.as_text)."""
    match = _EVIDENCE.match(item.strip())
    if match is None:
        return
    kind = match["kind"]
    if kind == "index":
        _add_index(linked)
    elif kind == "report_period":
        linked.add_table("income")


def _link_identifiers(sql: str, linked: LinkedSchema) -> None:
    """Tables and columns written in guidance, example SQL or a convention: the model must be able to
    look them up. A plain word (close, revenue) counts as a column only on a table already linked or
    named; a name no English text uses (netprofit_yoy) brings its table along."""
    if not sql:
        return
    words = set(re.findall(r"[a-z_][a-z0-9_]*", sql.lower()))
    for table in TABLES:
        named = table.name in words or any("_" in c and c in words for c in _UNIQUE_COLUMNS[table.name])
        if named and table.name != "dataset_info":
            linked.add_table(table.name)
    for name in list(linked.tables):
        linked.add(name, *(column for column in TABLES_BY_NAME[name].column_names if column in words))
    for metric in linked.context.model.metrics.values():
        if metric.expression and metric.key in words:
            _add_metric(metric, linked)


def _conventions(text: str, linked: LinkedSchema) -> list[str]:
    chosen = []
    for key in linked.context.model.conventions:
        trigger = _CONVENTION_TRIGGERS.get(key)
        if trigger is None:
            chosen.append(key)
            continue
        pattern, tables = trigger
        if re.search(pattern, text) or any(table in linked.columns for table in tables):
            chosen.append(key)
    return chosen


def _attributes(node: dict[str, Any]) -> Iterable[str]:
    label = str(node.get("label", ""))
    if label.startswith("attribute:"):
        yield label.partition(":")[2]
    for child in node.get("children", []):
        yield from _attributes(child)


def _longest_first(words: Iterable[str]) -> list[str]:
    return sorted(words, key=len, reverse=True)


def _has(text: str, word: str) -> bool:
    return _pattern(word).search(text) is not None


@cache
def _pattern(word: str, placeholders: bool = False) -> re.Pattern[str]:
    """A word as found in normalized text: Latin words not inside longer ones ('pe' is not in 'open',
    '亿' and 'm' may follow a number) but inflected (gained, gap ups); with `placeholders`, N/M/k
    stand for any number."""
    folded = normalize_text(word)
    parts = _PLACEHOLDER.split(folded) if placeholders else [folded]
    body = _NUMBER.join(re.escape(part) for part in parts)
    start = r"(?<![a-z])" if folded[:1].isascii() and folded[:1].isalpha() else ""
    end = ""
    if folded[-1:].isascii() and folded[-1:].isalpha():
        end = r"(?:s|es|ed|d|ing)?(?![a-z])" if len(folded) >= 3 else r"(?![a-z])"
    return re.compile(start + body + end)


@cache
def _catalogue_concepts() -> tuple[Concept, ...]:
    return default_catalogue().concepts
