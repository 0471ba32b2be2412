"""Entities the question names must reach the SQL: 银行股 → industry = '银行', 科技股 → all eight
industries of the group, 上交所 → 'SSE', 创业板 → market = '创业板', 沪深300 → '000300.SH', 600519 →
'600519.SH'. A stock named by its name (贵州茅台) needs the database: it passes when the SQL writes
the name, is undecidable when the SQL writes some stock code (the probe step grounds it), and fails
when the SQL names no stock at all. Entities the question excludes are the negation kind's.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.entities import (
    ENTITY_CATEGORIES,
    EntityRef,
    entity_ref,
    name_around,
    stock_names,
)
from backend.domain.pipeline.validate.checklist.kinds.negation import (
    exclusion_scopes,
    negated_hits,
    restated_groups,
)
from backend.domain.pipeline.validate.checklist.kinds.per_group import grouping_expressions
from backend.domain.pipeline.validate.checklist.model import (
    Attribution,
    Constraint,
    Finding,
    Kind,
    failed,
    passed,
    undecided,
)
from backend.domain.pipeline.validate.checklist.question import Question
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of
from backend.domain.pipeline.validate.checklist.vocabulary import Category, Hit

_STOCK_CODE = re.compile(r"\d{6}")
# A city said as where companies are based (Shenzhen-based, headquartered in Shanghai, 注册地在深圳)
# names their region (area), not the exchange of the same city.
_BASED_AFTER = re.compile(r"[- ]?based\b", re.IGNORECASE)
_BASED_BEFORE = re.compile(
    r"(?:\b(?:based|headquartered|registered|located)\s+in\s+|注册地(?:在|为|是)?|总部(?:在|位于)?|注册在)$",
    re.IGNORECASE,
)
_CODE_PREFIX = re.compile(r"\d{1,5}%?")
# an index or exchange is shown by its code, not by its other names
_FIRST_VALUE_SHOWN = {Category.INDEX, Category.EXCHANGE}


@dataclass(frozen=True)
class EntityDetail:
    kind: ClassVar[Kind] = Kind.ENTITY
    entity: EntityRef
    # the question lists other values of the same column (沪市、深市、北交所各…, Shanghai vs Shenzhen):
    # a SQL grouping by the column answers each of them as a group (boards and exchanges; industries
    # listed are a few of many, which the grouping alone does not keep apart)
    listed: bool = False

    def check(self, sql: Sql) -> Finding:
        literals = list(sql.strings)
        if self.entity.category is None:
            return self._stock_name(sql, literals)
        if self.entity.category is Category.STOCK:  # a code may be written as a number (symbol = 600519)
            covered = list(self.entity.values) if self.entity.named_in(sql.tree) else []
        else:
            covered = self.entity.covered_values(literals)
        if covered and _only_excluded(sql, covered):
            return failed(
                Attribution.CONDITION, f"the SQL only excludes {self.entity.label}; the question keeps it"
            )
        if len(covered) == len(self.entity.values) or (covered and self.entity.category is Category.INDEX):
            return passed(f"the SQL names {self.entity.label}")
        if covered:
            missing = ", ".join(v for v in self.entity.values if v not in covered)
            return failed(
                Attribution.ENTITY_MAPPING,
                f"{self.entity.label} also covers {missing}, which the SQL leaves out",
            )
        if self.entity.category in {Category.BOARD, Category.EXCHANGE} and _code_prefixes(sql):
            return undecided(
                f"the SQL picks stocks by code pattern; whether that is {self.entity.label} is not read"
            )
        if self.listed and any(self.entity.column in columns_of(e) for e in grouping_expressions(sql)):
            if self.entity.category in {Category.BOARD, Category.EXCHANGE}:  # a few values, listed whole
                return passed(
                    f"the SQL groups by {self.entity.column}: {self.entity.label} is one of its groups"
                )
            return undecided(  # a few of many industries: the others may be left in as groups of their own
                f"the SQL groups by {self.entity.column}; whether it keeps only the values listed is not read"
            )
        return failed(Attribution.ENTITY_MAPPING, f"the SQL never names {self.entity.label}")

    def _stock_name(self, sql: Sql, literals: list[str]) -> Finding:
        if any(self.entity.key in literal for literal in literals):
            return passed(f"the SQL names {self.entity.key}")
        if any(_STOCK_CODE.search(literal) for literal in literals) or _by_name(sql):
            return undecided(
                f"the SQL picks a stock by code or name pattern; that it is {self.entity.key} needs the data"
            )
        return failed(Attribution.ENTITY_MAPPING, f"the SQL names no stock for {self.entity.key}")


def _only_excluded(sql: Sql, values: list[str]) -> bool:
    """Every literal naming the values sits under != / NOT IN / NOT LIKE / NOT (…) within its condition."""
    literals = [
        node
        for node in sql.nodes()
        if isinstance(node, exp.Literal) and node.is_string and node.this in values
    ]
    return bool(literals) and all(_negated(literal) for literal in literals)


def _negated(node: exp.Expr) -> bool:
    parent = node.parent
    while parent is not None and not isinstance(parent, exp.Select | exp.Where | exp.Having | exp.Join):
        if isinstance(parent, exp.NEQ | exp.Not):
            return True
        parent = parent.parent
    return False


def _code_prefixes(sql: Sql) -> bool:
    """Stocks picked by code pattern: ts_code LIKE '300%', startsWith(symbol, '68'), substring(…) = '6'."""
    for node in sql.nodes():
        if isinstance(node, exp.Predicate | exp.StartsWith | exp.EndsWith) and {
            "ts_code",
            "symbol",
        } & columns_of(node):
            literals = (n.this for n in node.find_all(exp.Literal) if n.is_string)
            if any(_CODE_PREFIX.fullmatch(literal) for literal in literals):
                return True
    return False


def _by_name(sql: Sql) -> bool:
    return any(
        isinstance(node, exp.EQ | exp.Like | exp.ILike | exp.In) and "name" in columns_of(node)
        for node in sql.nodes()
    )


def _names_region(question: Question, hit: Hit) -> bool:
    return bool(_BASED_AFTER.match(question.raw, hit.end) or _BASED_BEFORE.search(question.raw[: hit.start]))


# A bracket opened soon after a group word (医药三个行业（化学制药、中药…）, pharma (biotech and TCM)).
_GLOSS_OPENS = re.compile(r"[^，,。；;()]{0,8}?\(")


def glossed_groups(question: Question) -> list[Hit]:
    """Industry groups whose industries meant are listed in brackets right after them: the question
    names those industries, not every industry of the group."""
    found = []
    for group in question.hits_of(Category.INDUSTRY_GROUP):
        opened = _GLOSS_OPENS.match(question.text, group.end)
        closes = question.text.find(")", opened.end()) if opened else -1
        if opened is None or closes < 0:
            continue
        inside = [hit for hit in question.hits if opened.end() <= hit.start and hit.end <= closes]
        if inside and all(
            hit.category is Category.INDUSTRY and hit.key in question.vocabulary.industry_groups[group.key]
            for hit in inside
        ):
            found.append(group)
    return found


def extract(question: Question) -> list[Constraint]:
    excluded = {(hit.start, hit.end) for _, hit in negated_hits(question)}
    excluded |= {(hit.start, hit.end) for hit in restated_groups(question)}
    excluded |= {(hit.start, hit.end) for hit in glossed_groups(question)}
    scopes = exclusion_scopes(question)
    found: list[Constraint] = []
    seen: set[tuple[Category | None, str]] = set()
    kept = [hit for hit in question.hits_of(*ENTITY_CATEGORIES) if (hit.start, hit.end) not in excluded]
    keys_by_column = Counter(
        entity_ref(question, hit).column for hit in {(h.category, h.key): h for h in kept}.values()
    )
    for hit in question.hits_of(*ENTITY_CATEGORIES):
        if (
            (hit.start, hit.end) in excluded
            or name_around(question, hit) is not None
            or (hit.category, hit.key) in seen
        ):
            continue
        seen.add((hit.category, hit.key))
        if hit.category is Category.EXCHANGE and _names_region(question, hit):
            continue
        entity = entity_ref(question, hit)
        if hit in scopes:  # the group an exclusion is taken from: what is left of it
            entity = replace(entity, values=scopes[hit])
        span = question.span(hit.start, hit.end)
        values = "、".join(entity.values[:1] if entity.category in _FIRST_VALUE_SHOWN else entity.values)
        text = question.says(
            f"{span.text}：{entity.column} = {values}", f"{span.text}: {entity.column} = {values}"
        )
        listed = keys_by_column[entity.column] > 1
        found.append(Constraint(span, text, question.lang, EntityDetail(entity, listed)))
    for start, end, name in stock_names(question):
        entity = EntityRef(None, name, (name,), "ts_code", name)
        span = question.span(start, end)
        text = question.says(f"{name}：需由数据确认的股票", f"{name}: a stock the data must ground")
        found.append(Constraint(span, text, question.lang, EntityDetail(entity)))
    return sorted(found, key=lambda constraint: constraint.span.start)
