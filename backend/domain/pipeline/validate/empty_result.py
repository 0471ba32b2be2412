"""An answer with no rows says that nothing meets the question's conditions. That is rarely so, and a
condition read on the wrong day or the wrong column (昨天涨停 tested on today, 剔除北交所 read as only
the BSE) empties a result as surely as a true "none": no check on the SQL tree tells the two apart.

So an empty result is a point of its own, undecided unless a check that reads the question on its own
finds nothing that qualifies (a reverse check's own query over every condition, or over the stocks a
count names, returning none) — such a check judges this same point, `NOTHING_QUALIFIES`, and its pass
decides it (correct.judge: a point is decided when one of its checks passed and none failed). It never
fails: none may be the answer.
"""

from __future__ import annotations

from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.text import Lang, says
from backend.domain.pipeline.validate.outcome import CheckResult

NOTHING_QUALIFIES = "nothing-qualifies"


def empty_result_check(result: ResultRows, lang: Lang) -> CheckResult | None:
    """An undecided check when the answer has no rows; None otherwise."""
    if result.rows:
        return None
    return CheckResult(
        check_id="empty-result",
        stage="reverse",
        level="result",
        kind="empty_result",
        text=says(
            lang,
            "答案没有行：是否确实没有满足条件的？",
            "The answer has no rows: does nothing really meet the conditions?",
        ),
        sql=None,
        criterion=says(
            lang,
            "一项独立读题的反查也找不到满足条件的",
            "a check reading the question on its own finds nothing that qualifies either",
        ),
        verdict="undecidable",
        attribution=None,
        reason="an empty answer is verified only when another reading of the question finds nothing either",
        ms=0.0,
        point=NOTHING_QUALIFIES,
    )
