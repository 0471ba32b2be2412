"""Built-in parser: typed tokens → Screen, by grammar passes over the token list (NaLIR-style).

Each pass recognises one family of phrases and replaces the tokens it used by synthetic tokens
(`cond`, `timespec`, `orderspec`, …); later passes build on what earlier ones produced, so the order
of GRAMMAR_PASSES matters (README.md lists what each pass consumes and produces). Whatever is left
at the end must be harmless (connectors, a stray unit word) or the question is refused with the
words that could not be placed: the parser never guesses.
"""

from __future__ import annotations

from typing import NamedTuple

from backend.domain.language.context import LanguageContext
from backend.domain.language.ir import Screen
from backend.domain.language.lexicon import STOCK_NOUNS, Token, follows, tokenize
from backend.domain.language.parser.aggregates import (
    aggregate_metric,
    counts_each,
    distance_from_high,
    drawdown_from_window_high,
)
from backend.domain.language.parser.asked_units import asked_unit
from backend.domain.language.parser.assembly import assemble
from backend.domain.language.parser.benchmarks import benchmark_comparison
from backend.domain.language.parser.changes import change_ranking, english_change_ranking, same_period_before
from backend.domain.language.parser.colon_pauses import colon_before_aggregate
from backend.domain.language.parser.comparisons import (
    bare_price,
    compare,
    doubled_between_periods,
    doubled_from_period,
    elided_counted_subject,
    elided_subject,
    multiple_of_measure,
    part_of,
    price_move,
    same_periods_again,
    shared_comparison,
    single_word_conditions,
    swing,
    swing_after,
    swing_from_named_loss,
    versus_group_average,
    versus_other_period,
)
from backend.domain.language.parser.concepts import concepts
from backend.domain.language.parser.cumulative_words import cumulative_words, refuse_cumulative_on_one_day
from backend.domain.language.parser.day_series import named_stock_days
from backend.domain.language.parser.defined_labels import (
    defined_candle,
    defined_label,
    profit_after_loss,
    term_defined_after,
)
from backend.domain.language.parser.direction_with_periods import direction_with_periods
from backend.domain.language.parser.distances import distance_from_level
from backend.domain.language.parser.each_after_aggregate import each_after_aggregate
from backend.domain.language.parser.each_of_groups import each_words, refuse_each_group_listed_per_stock
from backend.domain.language.parser.each_quarter import every_quarter
from backend.domain.language.parser.elided_aggregates import elided_aggregate_measure
from backend.domain.language.parser.errors import NotUnderstood
from backend.domain.language.parser.exclusions import excluded_after
from backend.domain.language.parser.frequency import (
    counted_days,
    each_period,
    every_day,
    never_on_any_day,
    on_another_day,
    shown_day_counts,
)
from backend.domain.language.parser.group_basis import whole_market_basis
from backend.domain.language.parser.grouping import count_of_groups, group, listing_periods
from backend.domain.language.parser.growth_words import growth_rate_named
from backend.domain.language.parser.improvement import improvement
from backend.domain.language.parser.index_changes import index_membership
from backend.domain.language.parser.intraday_extremes import move_at_extreme
from backend.domain.language.parser.kept_scopes import refuse_dropped_scopes, scopes_read
from backend.domain.language.parser.limit_touched import limit_not_held
from backend.domain.language.parser.listing import listing
from backend.domain.language.parser.money_readings import money_reading
from backend.domain.language.parser.move_fractions import move_by_fraction, move_by_multiple
from backend.domain.language.parser.ordering import growth_basis_said_again, ordering, which_of_named
from backend.domain.language.parser.other_multiples import multiple_of_other
from backend.domain.language.parser.plural_which import plural_which_words, refuse_uncounted_superlative
from backend.domain.language.parser.profit_words import cumulative_profit_sign, quarter_swing_from_named_loss
from backend.domain.language.parser.qualifier_scopes import bracket_spans, scope_bracketed_qualifiers
from backend.domain.language.parser.quarter_words import quarter_on_its_own, year_to_date_denied
from backend.domain.language.parser.readings import POINTS, Reading, reread_tokens
from backend.domain.language.parser.report_rows import annual_report_rows, year_report_rows
from backend.domain.language.parser.report_windows import (
    from_quarter_before,
    quarter_compared_before,
    report_window,
    valuation_basis_after,
)
from backend.domain.language.parser.rewriting import GrammarPass, rewrite
from backend.domain.language.parser.scopes import scope, scope_conditions, scope_lists, scopes_side_by_side
from backend.domain.language.parser.signed_figures import signed_figure
from backend.domain.language.parser.sizes import cap_size
from backend.domain.language.parser.span_years import each_year_after_figure, span_count_said_again
from backend.domain.language.parser.streaks import (
    rising_together,
    streak,
    streak_each_day,
    streak_through_day,
    streak_total,
    streak_volume,
)
from backend.domain.language.parser.sustained import sustained
from backend.domain.language.parser.technical import (
    crossing_after,
    gap_details,
    highest_of_window,
    listed_stack,
    ma_cross_ma,
    ma_turning,
    moving_average,
    named_moving_average,
    new_high_low,
    volume_surge,
)
from backend.domain.language.parser.time_scopes import time_scope
from backend.domain.language.parser.totals import total_after_group_ranking, totals_asked
from backend.domain.language.parser.two_periods import two_years_compared
from backend.domain.language.parser.values_first import value_before_figure
from backend.domain.language.parser.values_present import values_present
from backend.domain.language.parser.word_order import (
    average_word_said_first,
    averaged_most_per_day,
    averaged_move,
    averaging_amount,
    by_amount,
    how_much_moved,
    priced_at_multiple,
    shared_average_word,
    traded_by,
    verb_before_figure,
)

# Phrases that hold dates or numbers of their own (上市日期, N日均线, 连续N天) go before the time and
# comparison passes, which would otherwise read those dates and numbers as times and values.
GRAMMAR_PASSES: tuple[GrammarPass, ...] = (
    term_defined_after,
    improvement,
    signed_figure,
    asked_unit,
    named_moving_average,
    shared_average_word,
    average_word_said_first,
    verb_before_figure,
    value_before_figure,
    by_amount,
    move_at_extreme,
    how_much_moved,
    averaged_move,
    averaged_most_per_day,
    averaging_amount,
    priced_at_multiple,
    traded_by,
    cap_size,
    concepts,
    limit_not_held,
    gap_details,
    listed_stack,
    money_reading,
    listing_periods,
    listing,
    distance_from_level,
    drawdown_from_window_high,
    ma_cross_ma,
    moving_average,
    ma_turning,
    crossing_after,
    highest_of_window,
    new_high_low,
    rising_together,
    streak,
    streak_through_day,
    streak_total,
    streak_volume,
    volume_surge,
    from_quarter_before,
    two_years_compared,
    span_count_said_again,
    time_scope,
    each_year_after_figure,
    direction_with_periods,
    quarter_on_its_own,
    year_to_date_denied,
    scope,
    scope_lists,
    scope_conditions,
    which_of_named,
    index_membership,
    valuation_basis_after,
    report_window,
    growth_rate_named,
    quarter_compared_before,
    distance_from_high,
    elided_aggregate_measure,
    each_after_aggregate,
    named_stock_days,
    aggregate_metric,
    benchmark_comparison,
    versus_group_average,
    whole_market_basis,
    same_period_before,
    change_ranking,
    english_change_ranking,
    versus_other_period,
    same_periods_again,
    multiple_of_other,
    multiple_of_measure,
    shared_comparison,
    swing,
    swing_after,
    doubled_between_periods,
    doubled_from_period,
    part_of,
    bare_price,
    move_by_fraction,
    move_by_multiple,
    compare,
    growth_basis_said_again,
    streak_each_day,
    each_period,
    elided_subject,
    elided_counted_subject,
    counted_days,
    on_another_day,
    every_day,
    shown_day_counts,
    price_move,
    never_on_any_day,
    cumulative_profit_sign,
    single_word_conditions,
    swing_from_named_loss,
    quarter_swing_from_named_loss,
    every_quarter,
    excluded_after,
    sustained,
    counts_each,
    ordering,
    total_after_group_ranking,
    annual_report_rows,
    year_report_rows,
    group,
    count_of_groups,
)


# 里 / 中 (in, among) dropped as filler: where they were said still tells what a ranking picked from
INSIDE_WORDS = frozenset({"里", "中", "当中", "之中", "里面", "其中"})


class _Fillers(NamedTuple):
    """What the dropped filler words still say: a word for stocks (the rows are stocks), 里/中 where."""

    names_stocks: bool
    inside_at: tuple[int, ...]
    brackets: tuple[tuple[int, int], ...]  # (opening, closing) offsets of each pair of brackets
    plural_which: tuple[str, ...]  # 哪几个 / 哪些: several items asked


class Parser:
    def __init__(self, context: LanguageContext) -> None:
        self.context = context
        self.model = context.model
        self.codes = context.stock_codes
        self.names = context.stock_names

    def parse(self, question: str) -> Screen:
        """The first reading of the question (NotUnderstood, naming the words, if it has none)."""
        tokens, said = self._tokens(question)
        return self._read(tokens, Reading(), said)

    def parse_readings(self, question: str) -> list[Screen]:
        """The question's distinct readings, best first: the first reading, then the same with one
        of the places it can be read two ways (readings.POINTS, in that order) flipped."""
        tokens, said = self._tokens(question)
        first = Reading()
        screens = [self._read(tokens, first, said)]
        for point in sorted(first.met, key=POINTS.index):
            try:
                screen = self._read(tokens, Reading(frozenset({point})), said)
            except NotUnderstood:
                continue  # that way of reading it leaves words unread
            if screen not in screens:
                screens.append(screen)
        return screens

    def _read(self, tokens: list[Token], reading: Reading, said: _Fillers) -> Screen:
        tokens = reread_tokens(tokens, reading)
        cumulative, each = cumulative_words(tokens), each_words(tokens)
        scopes = []
        for grammar_pass in GRAMMAR_PASSES:
            tokens = rewrite(self.model, tokens, grammar_pass)
            if grammar_pass is scope_conditions:  # every scope read: none may vanish in a later pass
                scopes = scopes_read(tokens)
        tokens = scope_bracketed_qualifiers(tokens, said.brackets)
        screen = assemble(
            self.model, tokens, reading, names_stocks=said.names_stocks, inside_at=said.inside_at
        )
        refuse_dropped_scopes(scopes, screen)
        refuse_cumulative_on_one_day(cumulative, screen, self.model)
        refuse_uncounted_superlative(said.plural_which, screen)
        refuse_each_group_listed_per_stock(each, screen)
        return screen

    def _tokens(self, question: str) -> tuple[list[Token], _Fillers]:
        """The question's tokens without filler, and whether a word for stocks was among the filler
        (股票, companies: the rows asked for are stocks, not groups)."""
        every = tokenize(question, self.context.lexicon, self.codes, self.context.latest_trade_date)
        every = values_present(every)  # 有市盈率的: read with its filler words, before they are dropped
        every = totals_asked(self.model, every)  # 一共成交了多少亿: a total word is filler elsewhere
        # a label's colon is filler, and a candle's label before its definition
        every = profit_after_loss(defined_candle(defined_label(every, question), question))
        every = colon_before_aggregate(every)  # …by market cap: what is their average gain
        names_stocks = any(token.kind == "filler" and token.text in STOCK_NOUNS for token in every)
        inside_at = tuple(t.start for t in every if t.kind == "filler" and t.text in INSIDE_WORDS)
        tokens = [token for token in scopes_side_by_side(every) if token.kind != "filler"]
        _refuse_ambiguous_names(tokens, self.names)
        unknown = _unread_words(tokens)
        if unknown:
            raise NotUnderstood("could not map: " + ", ".join(f"'{word}'" for word in _merge_words(unknown)))
        if not tokens:
            raise NotUnderstood(
                "the question asks for nothing the engine knows (no metric, entity or condition)"
            )
        return tokens, _Fillers(names_stocks, inside_at, bracket_spans(every), plural_which_words(every))


def _refuse_ambiguous_names(tokens: list[Token], names: dict[str, str]) -> None:
    """A word naming several stocks (平安) is refused with the candidates, never resolved to one."""
    for token in tokens:
        if token.kind == "ambiguous_stock":
            candidates = ", ".join(f"{names.get(code, code)} ({code})" for code in token.value)
            raise NotUnderstood(f"'{token.text}' may name several stocks: {candidates}; say which one")


def _unread_words(tokens: list[Token]) -> list[str]:
    """The unknown tokens' words, with a bare Chinese comparative glued to one of them (the 长 of 董事长):
    a comparative is read only after 比, so one touching an unknown word is part of that word."""
    return [
        token.text
        for i, token in enumerate(tokens)
        if token.kind == "unknown"
        or (token.kind == "comparative" and not token.text.isascii() and _glued_to_unknown(tokens, i))
    ]


def _glued_to_unknown(tokens: list[Token], i: int) -> bool:
    return any(
        other.kind == "unknown" and (follows(tokens[i], other) or follows(other, tokens[i]))
        for other in tokens[max(i - 1, 0) : i + 2]
    )


def _merge_words(words: list[str]) -> list[str]:
    """Adjacent unknown Chinese characters form one word in the message ('市净' rather than '市', '净')."""
    merged: list[str] = []
    for word in words:
        if merged and not word.isascii() and not merged[-1].isascii():
            merged[-1] += word
        else:
            merged.append(word)
    return merged


__all__ = ["GRAMMAR_PASSES", "NotUnderstood", "Parser"]
