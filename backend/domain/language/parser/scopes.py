"""Entity scopes: exchanges, boards, industries, industry groups, areas, indexes and single stocks.

Three passes, in this order: each scope word becomes a `scope` token; runs such as 银行和证券 merge
into one scope with several values; then every scope becomes a condition (negated after 非/not).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from backend.domain.language.ir import Not, Scope
from backend.domain.language.lexicon import Token
from backend.domain.language.parser.composition import LIST_DIMENSIONS
from backend.domain.language.parser.rewriting import Match, kind_at, synthetic
from backend.domain.language.semantic import SemanticModel

SCOPE_KINDS = {"exchange": "exchange", "board": "board", "industry": "industry", "group": "group",
               "index": "index", "stock": "stock", "area": "area"}  # fmt: skip
# the dimension word that may follow a scope of that kind and only repeats it ("Shanghai exchange")
OWN_DIMENSION = {"exchange": "exchange", "board": "market", "industry": "industry", "group": "industry",
                 "area": "area"}  # fmt: skip


# words joining scopes into one list (和 reads as `to` first: 从…和…; versus: A vs B, one row each)
JOINING = {"and", "or", "to", "versus"}

# a stock has one of each: two of these side by side can only be a list ("banks vs brokers", the
# "vs" being filler), never both at once (an empty AND)
ONE_PER_STOCK = {"exchange", "board", "industry", "area", "stock"}

# before a count of groups, a word that picks some of them (最大的三个交易所) or names them (沪深北三个交易所)
NAMING_BEFORE_COUNT = {"super", "order", "top", "scope", *SCOPE_KINDS}

# a pause ends an exclusion: 剔除ST股后，沪市主板… excludes ST only
PAUSES = {",", "，", ";", "；"}

# an exchange that is also a board of its own name: in a list of boards it names that board
# (主板、创业板、科创板、北交所 lists four boards, not three boards on the BSE)
EXCHANGE_AS_BOARD = {"BSE": "北交所"}

# the region's marker said after it, as one adjective (Guangdong-registered, Zhejiang-headquartered)
TRAILING_AREA_MARKERS = {"registered", "headquartered", "注册", "注册的"}
# what may join the areas of a list said before one trailing marker (北京、上海、深圳注册的: all areas)
LIST_JOINERS = {"、", "和", "与", "及", ",", "，", "or", "and", "或"}

# 剔除…后 / 除去…之后: the word closing an exclusion (after the excluded list, before the rest)
CLOSING_AFTER = {"后", "之后", "以后"}


def scope(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    token = tokens[i]
    if token.kind == "area_marker" and _area_named(tokens, i + 1) is not None:
        # registered in Zhejiang / 注册地在上海: the region of registration, even where the word
        # names an exchange first (上海, 深圳)
        found_area = Scope("area", values=(str(_area_named(tokens, i + 1)),))
        return 2, [synthetic("scope", found_area, tokens[i : i + 2])]
    if token.kind == "area_marker" and kind_at(tokens, i + 1) == "dim" and tokens[i + 1].value == "area":
        return 2, [tokens[i + 1]]  # 注册地在哪些地区: the marker restates the dimension
    if token.kind == "area_marker" and token.text == "注册地" and kind_at(tokens, i - 1) == "per":
        return 1, [synthetic("dim", "area", [token])]  # 按注册地 / 各注册地: the noun names the dimension
    trailing_marker = kind_at(tokens, i + 1) == "area_marker" and tokens[i + 1].text in TRAILING_AREA_MARKERS
    if _area_in_list_before_marker(tokens, i):  # 北京、上海、深圳注册的: each area, not the exchange
        found_area = Scope("area", values=(str(_area_named(tokens, i)),))
        return 1, [synthetic("scope", found_area, tokens[i : i + 1])]
    if trailing_marker and _area_named(tokens, i) is not None:  # Guangdong-registered
        found_area = Scope("area", values=(str(_area_named(tokens, i)),))
        return 2, [synthetic("scope", found_area, tokens[i : i + 2])]
    every_group = _every_group_counted(model, tokens, i)
    if every_group is not None:
        return every_group
    if token.kind not in SCOPE_KINDS:
        return None
    used = 1
    if token.kind == "index" and kind_at(tokens, i + 1) == "constituent":
        used = 2
    grouped = kind_at(tokens, i - 1) == "per"  # "in each new-energy industry" keeps its grouping word
    if (
        not grouped
        and kind_at(tokens, i + 1) == "dim"
        and tokens[i + 1].value == OWN_DIMENSION.get(token.kind)
        and kind_at(tokens, i + 2) != "agg"  # the bank industry average: the group's average, its dimension
    ):
        used = 2  # "Shanghai exchange", "银行 行业"
    found = Scope(SCOPE_KINDS[token.kind], values=(str(token.value),))
    return used, [synthetic("scope", found, tokens[i : i + used])]


def _every_group_counted(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """三个交易所 / 四个板块: a count of groups said with its count word and dimension, the count being
    every group there is (3 exchanges, 4 boards), is a list of all of them, as 沪深北三个交易所 names
    them (one row each when each is asked); any other count (两个交易所, 三个行业) is left for the rules
    to read."""
    if kind_at(tokens, i) != "number" or kind_at(tokens, i - 1) in NAMING_BEFORE_COUNT:
        return None
    # the count word is what makes it a count of groups: without it the number is another figure's
    # (超过3%的交易所) or a ranking's (which 3 exchanges had the highest …)
    if kind_at(tokens, i + 1) != "count_unit":
        return None
    k = i + 2
    if kind_at(tokens, k) != "dim":
        return None
    every_of_dimension = {"exchange": ("exchange", model.exchanges), "market": ("board", model.boards)}
    every = every_of_dimension.get(str(tokens[k].value))
    if every is None or tokens[i].value != len(every[1]):
        return None
    kind, groups = every
    return k + 1 - i, [synthetic("scope", Scope(kind, values=tuple(groups)), tokens[i : k + 1])]


def _area_in_list_before_marker(tokens: list[Token], i: int) -> bool:
    """An area named in a list closed by one trailing marker (北京、上海、深圳注册的), not its last."""
    joined = kind_at(tokens, i + 1) == "and" and tokens[i + 1].text in LIST_JOINERS
    if _area_named(tokens, i) is None or not joined:
        return False
    k = i + 2
    while _area_named(tokens, k) is not None:
        if kind_at(tokens, k + 1) == "area_marker" and tokens[k + 1].text in TRAILING_AREA_MARKERS:
            return True
        if kind_at(tokens, k + 1) not in {"and", "to"} or tokens[k + 1].text not in LIST_JOINERS:
            return False
        k += 2
    return False


def _area_named(tokens: list[Token], i: int) -> str | None:
    """The area a word names, as its first or its other reading (上海 is the exchange first)."""
    if kind_at(tokens, i) == "area":
        return str(tokens[i].value)
    if not 0 <= i < len(tokens):
        return None
    areas = [str(entry.value) for entry in tokens[i].extra.get("alts", ()) if entry.kind == "area"]
    return areas[0] if areas else None


def scope_lists(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """银行和证券 / SSE or SZSE → one scope with several values; 两市 (one word for two exchanges) → one
    scope too, marked as one set (no row per exchange)."""
    if tokens[i].kind != "scope":
        return None
    merged: Scope = tokens[i].value
    j = i + 1
    while True:
        joined = kind_at(tokens, j) in JOINING and kind_at(tokens, j + 1) == "scope"
        if not joined and not _side_by_side(merged, tokens, j):
            break
        other = _as_board_beside(tokens[j + joined].value, merged)
        merged = _as_board_beside(merged, other)
        compatible = {merged.kind, other.kind} <= {"industry", "group"} or other.kind == merged.kind
        excluding = kind_at(tokens, i - 1) == "not" or kind_at(tokens, j + joined + 1) == "not_after"
        if not compatible or (excluding and _group_after_exclusion(model, merged, other, tokens[j])):
            break
        j += joined
        if other.kind != merged.kind:
            # an industry and a group of industries: one list of industries
            industries = _industries_of(model, merged.kind, merged.values)
            merged = Scope("industry", values=industries + _industries_of(model, other.kind, other.values))
        else:
            merged = Scope(merged.kind, values=merged.values + other.values)
        j += 1
    if j == i + 1:
        return None
    # the words of one restated word (两市 = 沪市和深市) all start where it does: one set, not a list
    if len({token.start for token in tokens[i:j]}) == 1:
        merged = replace(merged, one_word=True)
    together = _said_together(tokens, j)
    if together:  # Shanghai and Shenzhen combined, 沪市和深市合计成交额: one set too
        merged = replace(merged, one_word=True)
        j += together == "read"
    j += _size_restated(merged, tokens, j)
    return j - i, [synthetic("scope", merged, tokens[i:j])]


# a sum word right after a list joins it into one set (Shanghai and Shenzhen combined - how many
# advancers); before a figure it is that figure's total too (沪市和深市合计成交额: one total, not one each)
TOGETHER_SUMS = {"combined", "合计", "加起来", "加在一起", "合起来"}


def _said_together(tokens: list[Token], j: int) -> str:
    """The list right before `j` said as one set: "read" when the word says only that (together, 整体,
    combined - how many …), "summed" when it is the total of the figure after it too (合计成交额, left to
    the aggregate rules), "" when not said."""
    if kind_at(tokens, j) == "together":
        return "read"
    if kind_at(tokens, j) != "agg" or tokens[j].text not in TOGETHER_SUMS:
        return ""
    figure = kind_at(tokens, j + 1) in {"metric", "aggmetric"}
    figure = figure or (kind_at(tokens, j + 1) == "agg" and tokens[j + 1].value != "count")  # not "how many"
    return "summed" if figure else "read"


# set side by side (CSI 300 members vs CSI 500 members): filler elsewhere (a P/E versus the average)
VERSUS_WORDS = frozenset({"vs", "versus", "vs.", "compared with", "compared to"})


def scopes_side_by_side(tokens: list[Token]) -> list[Token]:
    """Before the filler is dropped: "vs" between two scopes (CSI 300 members vs CSI 500 members, the
    first one's constituent word between) is kept, to join them as "and" does: a list of groups
    compared one row each, never both memberships at once. Scopes no list can hold (an index vs a
    board) leave it unread, to refuse."""
    words = [k for k, token in enumerate(tokens) if token.kind != "filler" or token.text in VERSUS_WORDS]
    result = list(tokens)
    for place, k in enumerate(words[1:-1], start=1):
        before, after = tokens[words[place - 1]], tokens[words[place + 1]]
        if tokens[k].kind != "filler":
            continue
        closes_scope = before.kind in SCOPE_KINDS or (
            before.kind == "constituent" and place >= 2 and tokens[words[place - 2]].kind == "index"
        )
        if closes_scope and after.kind in SCOPE_KINDS:
            result[k] = Token("versus", "versus", tokens[k].text, tokens[k].start)
    return result


def _group_after_exclusion(model: SemanticModel, merged: Scope, other: Scope, separator: Token) -> bool:
    """除了银行，金融股里… / 金融股，银行除外: beside an exclusion, an industry and a group holding it
    are no list (银行, 银行, 证券, 保险) but a member taken out of its group; after a pause (除了白酒，
    金融股里) the group is the scope, not more of the excluded list. Kept apart, the exclusion stays
    on what it names and the group stays the scope."""
    if {merged.kind, other.kind} != {"industry", "group"}:
        return False
    if separator.text in PAUSES:
        return True
    merged_industries = set(_industries_of(model, merged.kind, merged.values))
    return not merged_industries.isdisjoint(_industries_of(model, other.kind, other.values))


def _size_restated(merged: Scope, tokens: list[Token], j: int) -> int:
    """沪深北三个交易所 / 银行和证券两个行业: the list's size and dimension said again right after it
    (tokens used; 0 when the number is not the list's size, which stays for the rules to read)."""
    if kind_at(tokens, j) != "number" or tokens[j].value != len(merged.values):
        return 0
    k = j + 1 + (kind_at(tokens, j + 1) == "count_unit")
    said = kind_at(tokens, k) == "dim" and tokens[k].value == LIST_DIMENSIONS.get(merged.kind)
    return k + 1 - j if said else 0


def _side_by_side(merged: Scope, tokens: list[Token], j: int) -> bool:
    """A scope right after the list with no joining word: 沪深北, or one more of a kind a stock has
    only one of (banks vs brokers, Moutai vs Wuliangye)."""
    if kind_at(tokens, j) != "scope":
        return False
    return merged.kind == "exchange" or (merged.kind in ONE_PER_STOCK and tokens[j].value.kind == merged.kind)


def _as_board_beside(item: Scope, neighbour: Scope) -> Scope:
    """北交所 beside a board is the board 北交所."""
    boards = [EXCHANGE_AS_BOARD.get(value) for value in item.values]
    if item.kind == "exchange" and neighbour.kind == "board" and all(boards):
        return Scope("board", values=tuple(str(board) for board in boards))
    return item


def scope_conditions(model: SemanticModel, tokens: list[Token], i: int) -> Match | None:
    """A scope becomes a condition; `scope=True` keeps it AND-ed at the top level by the assembly."""
    if tokens[i].kind == "not" and kind_at(tokens, i + 1) == "scope":
        excluded = [synthetic("cond", Not(tokens[i + 1].value), tokens[i : i + 2])]
        return _exclusion_continued(tokens, i, i + 2, excluded)
    closed = tokens[i].text.endswith(tuple(CLOSING_AFTER))  # 剔除ST股后 closes its own list
    if (
        tokens[i].kind == "cond"
        and _excludes_scope(tokens[i].value)
        and not closed
        and _joins_scope(tokens, i + 1)
    ):
        return _exclusion_continued(tokens, i, i + 1, [tokens[i]])  # 剔除ST和北交所
    if tokens[i].kind == "scope" and kind_at(tokens, i + 1) == "not_after":  # 破净股，银行除外
        return 2, [synthetic("cond", Not(tokens[i].value), tokens[i : i + 2])]
    if tokens[i].kind == "scope":
        return 1, [synthetic("cond", tokens[i].value, tokens[i : i + 1], scope=True)]
    return None


def _exclusion_continued(tokens: list[Token], i: int, j: int, excluded: list[Token]) -> Match:
    """剔除ST和北交所 / excluding banks and the BSE: scopes joined to an exclusion are excluded too
    (a list of one kind was already merged into one scope; these are the scopes of other kinds).
    `i` is where the exclusion starts, `j` where its first excluded item ends."""
    while _joins_scope(tokens, j) and tokens[j].text not in PAUSES:
        excluded.append(synthetic("cond", Not(tokens[j + 1].value), tokens[j : j + 2]))
        j += 2
    # 剔除银行、证券后: the 后 closing the excluded list only says the rest is what remains
    j += kind_at(tokens, j) in {"after", "bottom"} and tokens[j].text in CLOSING_AFTER
    j += kind_at(tokens, j) == "not_after"  # 除银行外 / 除了银行以外: the 外 closing the exclusion
    return j - i, excluded


def _joins_scope(tokens: list[Token], j: int) -> bool:
    return kind_at(tokens, j) in JOINING and kind_at(tokens, j + 1) == "scope"


def _excludes_scope(condition: object) -> bool:
    return isinstance(condition, Not) and isinstance(condition.item, Scope)


def _industries_of(model: SemanticModel, kind: str, values: Iterable[str]) -> tuple[str, ...]:
    if kind == "group":
        return tuple(name for value in values for name in model.industry_groups[value].industries)
    return tuple(values)
