"""Language dev benchmark: the hand-written dev set, the EX comparator and the EX runner.

Kept apart from backend.domain.language so that it never imports the engine's internals: the
translator under test is reached only through `backend.domain.language.api.translate_question`.

    from backend.domain.language_bench import load_dev_sets, run_ex, contract_translator
    report = run_ex(load_dev_sets(), contract_translator(store), store)
    report.summary()  # EX per category / language / overall
"""

from backend.domain.language_bench.compare import Comparison, ResultTable, compare_results
from backend.domain.language_bench.dataset import (
    CATEGORIES,
    DEFAULT_DEV_SET,
    DEV_SET_FILES,
    MEASURED_BLIND_ROUNDS,
    DevItem,
    DevSetError,
    load_dev_set,
    load_dev_sets,
    parse_dev_set,
    select,
)
from backend.domain.language_bench.runner import (
    ExReport,
    GoldCheck,
    ItemOutcome,
    check_gold,
    evaluate_item,
    run_ex,
)
from backend.domain.language_bench.spotit import SpotItVerdict, spotit_checker
from backend.domain.language_bench.translator import (
    TranslatorUnavailable,
    contract_translator,
    pipeline_translator,
)

__all__ = [
    "CATEGORIES",
    "DEFAULT_DEV_SET",
    "DEV_SET_FILES",
    "MEASURED_BLIND_ROUNDS",
    "Comparison",
    "DevItem",
    "DevSetError",
    "ExReport",
    "GoldCheck",
    "ItemOutcome",
    "ResultTable",
    "SpotItVerdict",
    "TranslatorUnavailable",
    "check_gold",
    "compare_results",
    "contract_translator",
    "evaluate_item",
    "load_dev_set",
    "load_dev_sets",
    "parse_dev_set",
    "pipeline_translator",
    "run_ex",
    "select",
    "spotit_checker",
]
