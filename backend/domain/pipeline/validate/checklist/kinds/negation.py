"""Negations of a named entity: 不属于沪深300, 非金融, 不含ST, not on ChiNext, excluding banks → NOT,
!=, NOT IN.

The entity's stored value must sit under a negation: !=, NOT (…), NOT IN (list or subquery),
NOT LIKE, notIn/notLike, an ANTI JOIN or EXCEPT. Named only positively, the SQL keeps what the
question excludes. Not named at all, a board or exchange may still be left out by naming the others
(market = '主板' for "Shenzhen, not ChiNext"): undecidable; anything else was dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from backend.domain.pipeline.validate.checklist.entities import ENTITY_CATEGORIES, EntityRef, entity_ref
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
from backend.domain.pipeline.validate.checklist.sqltree import Sql, columns_of, function_name, number_value
from backend.domain.pipeline.validate.checklist.vocabulary import Category, Hit

_CUE = re.compile(
    r"不属于|不是|不含|不包含|不包括|不在|排除|剔除|除去|去除|去掉|除了|非"
    r"|\b(?:not in|not on|not part of|not a member of|not|excluding|exclude|except|other than"
    r"|outside(?: of)?|non)\b"
)
_FILLER = re.compile(r"(?:\s|the\b|a\b|an\b|any\b|of\b)*")
# A verb of exclusion takes a list (剔除ST和北交所, excluding banks and brokers); 非 / not take one
# entity only (非ST和创业板股票 may keep ChiNext).
_LIST_CUE = re.compile(
    r"不含|不包含|不包括|排除|剔除|除去|去除|去掉|除了|excluding|exclude|except|other than"
)
_LIST_JOIN = re.compile(r"\s*(?:和|与|及|以及|、|,|，|and\b|or\b)(?:\s|the\b|a\b|an\b|any\b|of\b)*")
# An exclusion said after the entities: 银行除外, 银行和保险以外的, banks excluded.
_AFTER_CUE = re.compile(r"\s*(?:除外|以外|不算在内|\bexcluded\b|\baside\b)")
# A group named after the excluded list, restating it (剔除银行、券商、保险这些金融股, 除去白酒等消费股):
# the group is what is excluded, never kept; its members not listed are not read as excluded either.
_RESTATING = re.compile(r"\s*(?:这些|这几类|这几个|这类|这种|等等|等|之类的?)\s*")
_NEGATING_FUNCTIONS = {"notin", "notlike", "notilike", "notequals"}


def negated_hits(question: Question) -> list[tuple[int, Hit]]:
    """(cue start, entity hit) for every entity the question excludes."""
    found: list[tuple[int, Hit]] = []
    for cue in _CUE.finditer(question.text):
        if question.covered(cue.start()):
            continue
        position = _FILLER.match(question.text, cue.end())
        hit = question.hit_at(position.end() if position else cue.end(), *ENTITY_CATEGORIES)
        while hit is not None:
            found.append((cue.start(), hit))
            joined = _LIST_CUE.fullmatch(cue.group()) and _LIST_JOIN.match(question.text, hit.end)
            following = question.hit_at(joined.end(), *ENTITY_CATEGORIES) if joined else None
            hit = None if following and _is_scope(question, following, found) else following
    for first in question.hits_of(*ENTITY_CATEGORIES):
        listed = [first]
        while (joined := _LIST_JOIN.match(question.text, listed[-1].end)) and (
            following := question.hit_at(joined.end(), *ENTITY_CATEGORIES)
        ):
            listed.append(following)
        if _AFTER_CUE.match(question.text, listed[-1].end):
            found += [(first.start, hit) for hit in listed if all(hit is not seen for _, seen in found)]
    return found


def _is_scope(question: Question, group: Hit, excluded: list[tuple[int, Hit]]) -> bool:
    """A group holding an entity already excluded is the set it is taken from, not one more exclusion
    (除了银行，金融股里…, other than banks, financials…: the financial stocks but the banks)."""
    if group.category is not Category.INDUSTRY_GROUP:
        return False
    members = question.vocabulary.industry_groups.get(group.key, ())
    return any(hit.key in members for _, hit in excluded)


def exclusion_scopes(question: Question) -> dict[Hit, tuple[str, ...]]:
    """Groups an exclusion is taken from (除了银行，金融股里 → 金融), each with its industries left
    once the excluded ones are taken out (证券、保险): what the question keeps of the group."""
    excluded = negated_hits(question)
    keys = {hit.key for _, hit in excluded}
    return {
        group: tuple(v for v in question.vocabulary.industry_groups[group.key] if v not in keys)
        for group in question.hits_of(Category.INDUSTRY_GROUP)
        if all(group is not hit for _, hit in excluded) and _is_scope(question, group, excluded)
    }


def restated_groups(question: Question) -> list[Hit]:
    """Entity words that restate an excluded list right after it (…保险这些金融股)."""
    excluded = negated_hits(question)
    ends = {hit.end for _, hit in excluded}
    found = []
    for end in sorted(ends):
        restating = _RESTATING.match(question.text, end)
        group = question.hit_at(restating.end(), *ENTITY_CATEGORIES) if restating else None
        if group is not None and all(group is not hit for _, hit in excluded):
            found.append(group)
    return found


def _negating(node: exp.Expr) -> bool:
    if isinstance(node, exp.NEQ | exp.Not | exp.Except):
        return True
    if isinstance(node, exp.Like | exp.ILike) and node.args.get("negate"):
        return True
    if isinstance(node, exp.Join) and str(node.args.get("kind") or "").upper() == "ANTI":
        return True
    if isinstance(node, exp.Func) and function_name(node) in _NEGATING_FUNCTIONS:
        return True
    # position(name, 'ST') = 0, countSubstrings(…) = 0, has(…) = 0: "not found" written as a zero
    return isinstance(node, exp.EQ) and any(
        number_value(side) == 0 and isinstance(other, exp.Func)
        for side, other in ((node.expression, node.this), (node.this, node.expression))
    )


@dataclass(frozen=True)
class NegationDetail:
    kind: ClassVar[Kind] = Kind.NEGATION
    entity: EntityRef
    # the rest of the group the entity is excluded from (除了银行，金融股里: 证券、保险): naming all of
    # them, and not the entity, keeps the group without it
    rest: tuple[str, ...] = ()

    def check(self, sql: Sql) -> Finding:
        negations = [node for node in sql.nodes() if _negating(node)]
        if any(self.entity.named_in(node) for node in negations):
            return passed(f"the SQL excludes {self.entity.label}")
        if self.rest and set(self.rest) <= set(sql.strings) and not self.entity.named_in(sql.tree):
            return passed(
                f"the SQL names the rest of the group ({', '.join(self.rest)}) without {self.entity.key}"
            )
        inside = {id(inner) for node in negations for inner in node.walk()}
        positive = [
            node
            for node in sql.nodes()
            if isinstance(node, exp.Literal) and id(node) not in inside and self.entity.named_in(node)
        ]
        if positive and _null_test(sql):
            return undecided(
                f"the SQL may exclude {self.entity.label} with an outer join and an IS NULL test"
            )
        if positive:
            return failed(Attribution.CONDITION, f"the SQL keeps {self.entity.label} instead of excluding it")
        if self.entity.category in {Category.BOARD, Category.EXCHANGE} and self._others_named(sql):
            return undecided(
                f"the SQL names other {self.entity.column} values; they may leave {self.entity.key} out"
            )
        return failed(Attribution.CONDITION, f"nothing in the SQL excludes {self.entity.label}")

    def _others_named(self, sql: Sql) -> bool:
        """Whether the SQL picks values of the entity's column itself, or stocks by code prefix."""
        for node in sql.nodes():
            if isinstance(node, exp.EQ | exp.In | exp.Like | exp.StartsWith):
                columns = columns_of(node)
                if self.entity.column in columns or (
                    {"ts_code", "symbol"} & columns and not isinstance(node, exp.EQ)
                ):
                    return True
        return False


def _null_test(sql: Sql) -> bool:
    joins = [
        join for join in sql.tree.find_all(exp.Join) if str(join.args.get("side") or "").upper() == "LEFT"
    ]
    nulls = any(isinstance(node.expression, exp.Null) for node in sql.tree.find_all(exp.Is))
    return bool(joins) and (nulls or bool(sql.functions & {"isnull", "empty"}))


def extract(question: Question) -> list[Constraint]:
    found: list[Constraint] = []
    scopes = exclusion_scopes(question).values()
    for start, hit in negated_hits(question):
        entity = entity_ref(question, hit)
        rest = next((rest for rest in scopes if hit.key not in rest), ())
        span = question.span(start, hit.end)
        text = question.says(f"{span.text}：排除 {entity.label}", f"{span.text}: exclude {entity.label}")
        found.append(Constraint(span, text, question.lang, NegationDetail(entity, rest)))
    return found
