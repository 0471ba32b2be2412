"""EX comparison semantics: multiset rows, value-matched columns, float tolerance, optional order."""

from datetime import UTC, date, datetime
from decimal import Decimal

from backend.domain.language_bench import ResultTable, compare_results


def table(columns: list[str], rows: list[tuple]) -> ResultTable:
    return ResultTable(columns=columns, rows=rows)


def test_row_order_is_ignored_unless_order_matters() -> None:
    gold = table(["ts_code"], [("600519.SH",), ("000001.SZ",)])
    pred = table(["ts_code"], [("000001.SZ",), ("600519.SH",)])
    assert compare_results(gold, pred, order_matters=False).match
    ordered = compare_results(gold, pred, order_matters=True)
    assert not ordered.match
    assert "different order" in ordered.reason


def test_rows_are_a_multiset_so_duplicates_count() -> None:
    gold = table(["ts_code"], [("600519.SH",), ("000001.SZ",)])
    pred = table(["ts_code"], [("600519.SH",), ("600519.SH",), ("000001.SZ",)])
    result = compare_results(gold, pred, order_matters=False)
    assert not result.match
    assert "row count differs: gold 2, predicted 3" in result.reason
    assert result.only_in_pred == [["600519.SH"]]


def test_extra_predicted_columns_are_ignored_and_names_do_not_matter() -> None:
    gold = table(["industry", "avg_pe"], [("银行", 6.5), ("白酒", 25.0)])
    pred = table(["n", "avg(b.pe)", "s.industry"], [(3, 25.0, "白酒"), (9, 6.5, "银行")])
    result = compare_results(gold, pred, order_matters=False)
    assert result.match
    assert result.column_map == {"industry": "s.industry", "avg_pe": "avg(b.pe)"}


def test_a_missing_gold_column_fails_with_its_name() -> None:
    gold = table(["industry", "avg_pe"], [("银行", 6.5), ("白酒", 25.0)])
    pred = table(["industry", "avg_pb"], [("银行", 0.7), ("白酒", 6.0)])
    result = compare_results(gold, pred, order_matters=False)
    assert not result.match
    assert "avg_pe" in result.reason


def test_columns_must_pair_up_row_by_row() -> None:
    gold = table(["industry", "n"], [("银行", 1.0), ("白酒", 2.0)])
    pred = table(["industry", "n"], [("银行", 2.0), ("白酒", 1.0)])
    result = compare_results(gold, pred, order_matters=False)
    assert not result.match
    assert "do not pair up" in result.reason


def test_floats_are_equal_within_relative_tolerance_only() -> None:
    gold = table(["avg_mv"], [(2897792.450533333,)])
    assert compare_results(gold, table(["x"], [(2897792.4505333335,)]), order_matters=False).match
    assert compare_results(gold, table(["x"], [(Decimal("2897792.45053"),)]), order_matters=False).match
    assert not compare_results(gold, table(["x"], [(2897800.0,)]), order_matters=False).match


def test_numbers_dates_and_empty_results_are_normalised() -> None:
    gold = table(["trade_date", "n"], [(date(2025, 9, 8), 12)])
    pred = table(["d", "n"], [(datetime(2025, 9, 8, tzinfo=UTC), 12.0)])
    assert compare_results(gold, pred, order_matters=False).match
    assert compare_results(table([], []), table(["ts_code"], []), order_matters=False).match
    empty_pred = compare_results(gold, table([], []), order_matters=False)
    assert not empty_pred.match
    assert "predicted result is empty" in empty_pred.reason


def test_nan_equals_nan_but_not_a_number() -> None:
    gold = table(["avg"], [(float("nan"),)])
    assert compare_results(gold, table(["avg"], [(float("nan"),)]), order_matters=False).match
    assert not compare_results(gold, table(["avg"], [(0.0,)]), order_matters=False).match


def test_a_diff_names_the_codes_on_each_side() -> None:
    gold = table(["ts_code"], [("A",), ("B",), ("C",)])
    pred = table(["ts_code", "close"], [("A", 1.0), ("B", 2.0), ("D", 3.0)])
    result = compare_results(gold, pred, order_matters=False)
    assert not result.match
    assert result.only_in_gold == [["C"]]
    assert result.only_in_pred == [["D"]]
