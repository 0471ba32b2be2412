"""One question through the pipeline: probe → generate sql0 → execute r0 → validate (the checklist on
the SQL tree, reverse checks on the result) → correct (at most `max_rounds`) → final status.

Statuses: `verified` (every check of sql0 passed), `corrected` (a correction round's candidate passed
every check; its round is given), `unverified` (sql0's result with a risk warning naming the checks
that failed or could not decide), `not_understood`, `error` (no result: the SQL could not run).
An undecided check is never a pass, so no answer is `verified` while a check on a point the question
names could not decide. The store's StoreBusy propagates: the caller retries later.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from backend.domain.language.translation import (
    Evidence,
    Example,
    GenerationRequest,
    Generator,
    LlmCall,
    Translation,
)
from backend.domain.market.errors import MarketError, StoreBusy, StoreUnavailable
from backend.domain.pipeline.correct import judge, merge_guidance, risk_warning
from backend.domain.pipeline.generators import same_sql
from backend.domain.pipeline.ports import (
    EventSink,
    MarketReader,
    NoParadigmLibrary,
    ParadigmHit,
    ParadigmLibrary,
    QstTree,
    ResultRows,
)
from backend.domain.pipeline.probe import probe_question
from backend.domain.pipeline.text import Lang, language_of, says
from backend.domain.pipeline.trace import (
    CorrectionRound,
    FinalStatus,
    ParadigmEvent,
    RunFinished,
    RunStarted,
    StepFinished,
    StepName,
    StepOutcome,
    StepStarted,
    Trace,
)
from backend.domain.pipeline.validate.answer_scale import answer_scale_check
from backend.domain.pipeline.validate.answer_total import answer_total_check
from backend.domain.pipeline.validate.answer_unit import money_unit_check
from backend.domain.pipeline.validate.boundary import boundary_checks
from backend.domain.pipeline.validate.checklist import Constraint, Vocabulary, extract_constraints
from backend.domain.pipeline.validate.checklist.question import read_question
from backend.domain.pipeline.validate.checklist_stage import (
    check_candidate_constraints,
    check_candidate_execution,
    check_candidate_syntax,
)
from backend.domain.pipeline.validate.empty_result import empty_result_check
from backend.domain.pipeline.validate.fanout import fanout_checks
from backend.domain.pipeline.validate.grounded import grounded_checks
from backend.domain.pipeline.validate.index_lists import index_lists_check
from backend.domain.pipeline.validate.join_filter import join_filter_check
from backend.domain.pipeline.validate.join_keys import join_keys_check
from backend.domain.pipeline.validate.latest_period import latest_period_check
from backend.domain.pipeline.validate.llm_checks import LlmCheckRoles, run_llm_checks
from backend.domain.pipeline.validate.multiplicity import multiplicity_checks
from backend.domain.pipeline.validate.outcome import CheckResult
from backend.domain.pipeline.validate.reverse import reuse
from backend.domain.pipeline.validate.reverse.reading import Reading, read
from backend.domain.pipeline.validate.reverse.runner import run_checks, write_checks
from backend.domain.pipeline.validate.reverse.subject import Subject
from backend.domain.pipeline.validate.today import today_check
from backend.domain.pipeline.validate.unnamed_filter import unnamed_filter_check


@dataclass(frozen=True)
class PipelineSettings:
    max_rounds: int = 3  # correction rounds after sql0 (PIPELINE_MAX_ROUNDS)
    probe_rounds: int = 5
    workers: int = 3  # reverse checks side by side; 1 runs them one after another
    validate: bool = True  # False only for the "without validation" baselines of the benchmark


@dataclass(frozen=True)
class Ports:
    reader: MarketReader
    generator: Generator
    vocabulary: Vocabulary
    database: str
    library: ParadigmLibrary = field(default_factory=NoParadigmLibrary)
    sink: EventSink | None = None
    llm_checks: LlmCheckRoles | None = None  # the LLM's reverse-question writer (and judge), if configured


@dataclass
class Attempt:
    """One candidate SQL and what validating it found."""

    round: int
    sql: str
    result: ResultRows | None = None
    error: MarketError | None = None
    checks: list[CheckResult] = field(default_factory=list)
    # the built-in reverse checks with their trees and results, and what the library did for the
    # LLM's checks: the paradigm library records them after the final status
    library_checks: list[tuple[reuse.DescribedCheck, CheckResult]] = field(default_factory=list)
    llm_library: reuse.LlmLibraryUse | None = None

    @property
    def failed(self) -> list[CheckResult]:
        return judge(self.checks).failed

    @property
    def undecided(self) -> list[CheckResult]:
        return judge(self.checks).undecided

    @property
    def passed(self) -> bool:
        return self.result is not None and judge(self.checks).passed

    def summary(self) -> dict[str, object]:
        return {
            "round": self.round,
            "sql": self.sql,
            "passed": self.passed,
            "error": None if self.error is None else f"{self.error.code}: {self.error}",
            "failed": [check.check_id for check in self.failed],
            "undecided": [check.check_id for check in self.undecided],
        }


@dataclass
class PipelineOutcome:
    question: str
    lang: Lang
    status: FinalStatus
    message: str = ""
    error_code: str | None = None  # the market error that left no result (status `error`)
    translation: Translation | None = None  # sql0's
    initial_sql: str | None = None
    answer: Attempt | None = None  # the attempt whose result is returned
    attempts: list[Attempt] = field(default_factory=list)
    correction_round: int | None = None
    warnings: list[str] = field(default_factory=list)
    evidence: tuple[Evidence, ...] = ()
    timings_ms: dict[str, float] = field(default_factory=dict)
    trace: Trace = field(default_factory=Trace)
    generations: list[Translation] = field(default_factory=list)  # every generation, with its LLM calls
    check_llm_calls: list[LlmCall] = field(default_factory=list)  # the check roles' calls


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


class _Run:
    def __init__(self, question: str, ports: Ports, settings: PipelineSettings, candidate_sql: str | None):
        self.question = question
        self.ports = ports
        self.settings = settings
        self.candidate_sql = candidate_sql
        self.lang = language_of(question)
        self.trace = Trace(ports.sink)
        self.started = time.perf_counter()
        self.timings: dict[str, float] = {}
        self.constraints: list[Constraint] = []
        self.reading: Reading | None = None
        self.evidence: tuple[Evidence, ...] = ()
        self.examples: tuple[Example, ...] = ()
        self.generations: list[Translation] = []
        self.qst: QstTree | None = None  # the library's reading of the question (its paradigm key)
        self.check_llm_calls: list[LlmCall] = []
        # failures of LLM roles (adapter, check roles) whose work the built-in engine did alone
        self.role_warnings: list[str] = []

    # --- steps ---------------------------------------------------------------------------------
    def _step(self, step: StepName, round_number: int) -> float:
        self.trace.record(StepStarted(step=step, round=round_number))
        return time.perf_counter()

    def _done(
        self,
        step: StepName,
        round_number: int,
        started: float,
        outcome: StepOutcome,
        summary: str,
        sql: str | None = None,
    ) -> None:
        elapsed = _ms(started)
        self.timings[step] = round(self.timings.get(step, 0.0) + elapsed, 3)
        self.trace.record(
            StepFinished(step=step, round=round_number, outcome=outcome, ms=elapsed, summary=summary, sql=sql)
        )

    def _generate(self, request: GenerationRequest, round_number: int) -> Translation:
        step: StepName = "generate" if round_number == 0 else "correct"
        started = self._step(step, round_number)
        translation = self.ports.generator.generate(request)
        self.generations.append(translation)
        outcome: StepOutcome = "ok" if translation.status == "ok" and translation.sql else "failed"
        summary = translation.message or translation.status
        self._done(step, round_number, started, outcome, summary, translation.sql)
        return translation

    def _execute(self, attempt: Attempt) -> None:
        started = self._step("execute", attempt.round)
        try:
            attempt.result = self.ports.reader.query(attempt.sql)
        except StoreBusy:
            raise
        except MarketError as error:
            attempt.error = error
            self._done("execute", attempt.round, started, "failed", f"{error.code}: {error}", attempt.sql)
            return
        rows = len(attempt.result.rows)
        self._done("execute", attempt.round, started, "ok", f"{rows} rows", attempt.sql)

    def _validate(self, round_number: int, sql: str) -> Attempt:
        attempt = Attempt(round=round_number, sql=sql)
        syntax, parsed = check_candidate_syntax(sql, self.lang)
        if parsed is not None or not self.settings.validate:
            self._execute(attempt)
        if isinstance(attempt.error, StoreUnavailable) or not self.settings.validate:
            return attempt
        started = self._step("checklist", round_number)
        attempt.checks.append(syntax)
        if parsed is not None:
            error = None if attempt.error is None else f"{attempt.error.code}: {attempt.error}"
            rows = None if attempt.result is None else len(attempt.result.rows)
            attempt.checks.append(check_candidate_execution(error, rows, self.lang))
        attempt.checks += check_candidate_constraints(self.constraints, parsed, self.lang)
        if parsed is not None:
            attempt.checks += grounded_checks(
                self.constraints,
                parsed,
                self.evidence,
                self.ports.reader,
                self.ports.database,
                self.lang,
                question=self.question,
            )
            unit = money_unit_check(self.question, parsed, self.lang)
            scale = answer_scale_check(self.question, parsed, self.ports.vocabulary, self.lang)
            total = answer_total_check(self.question, parsed, self.ports.vocabulary, self.lang)
            today = today_check(self.question, parsed, self.lang, self.ports.reader, self.ports.database)
            period = latest_period_check(
                self.question, parsed, self.ports.reader, self.ports.database, self.lang
            )
            join_filter = join_filter_check(parsed, self.lang)
            join_keys = join_keys_check(parsed, self.lang)
            index_lists = index_lists_check(self.question, parsed, self.ports.vocabulary, self.lang)
            unnamed = unnamed_filter_check(self.question, parsed, self.ports.vocabulary, self.lang)
            checks = (unit, scale, total, today, period, join_filter, join_keys, index_lists, unnamed)
            attempt.checks += [check for check in checks if check is not None]
            if attempt.result is not None:  # the candidate ran: its own rows can be recounted
                attempt.checks += multiplicity_checks(self.question, parsed, self.ports.reader, self.lang)
                attempt.checks += fanout_checks(parsed, self.ports.reader, self.lang)
                attempt.checks += boundary_checks(
                    self.question, self.constraints, parsed, self.ports.reader, self.lang
                )
        for check in attempt.checks:
            self.trace.record(check.event(round_number))
        failed = sum(check.verdict == "fail" for check in attempt.checks)
        self._done("checklist", round_number, started, "failed" if failed else "ok", f"{failed} failed")
        if attempt.result is not None and self.reading is not None:
            started = self._step("reverse_checks", round_number)
            subject = Subject(self.reading, attempt.result, self.ports.database)
            described = reuse.describe_all(write_checks(subject), subject)
            reverse = run_checks(
                [item.check for item in described],
                self.ports.reader,
                attempt.result,
                workers=self.settings.workers,
            )
            attempt.library_checks = list(zip(described, reverse, strict=True))
            reverse += self._llm_checks(attempt, round_number, sql)
            empty = empty_result_check(attempt.result, self.lang)
            reverse += [] if empty is None else [empty]
            for check in reverse:
                self.trace.record(check.event(round_number))
            attempt.checks += reverse
            failed = sum(check.verdict == "fail" for check in reverse)
            summary = f"{len(reverse)} checks, {failed} failed"
            self._done("reverse_checks", round_number, started, "failed" if failed else "ok", summary)
        return attempt

    def _llm_checks(self, attempt: Attempt, round_number: int, sql: str) -> list[CheckResult]:
        if self.ports.llm_checks is None or attempt.result is None:
            return []
        # The key the library finds the LLM's checks under: the question's reading.
        qst = self.qst or next((item.qst for item in self.generations if item.qst is not None), None)
        found = run_llm_checks(
            self.ports.llm_checks,
            self.question,
            sql,
            attempt.result,
            [constraint.text for constraint in self.constraints],
            self.ports.reader,
            self.ports.database,
            round_number=round_number,
            workers=self.settings.workers,
            library=self.ports.library,
            qst=qst,
        )
        attempt.llm_library = found.library
        self.check_llm_calls += found.calls
        self.role_warnings += [warning for warning in found.warnings if warning not in self.role_warnings]
        return found.results

    # --- the run -------------------------------------------------------------------------------
    def run(self) -> PipelineOutcome:
        settings = self.settings
        self.trace.record(
            RunStarted(
                question=self.question,
                lang=self.lang,
                engine=self.ports.generator.name,
                candidate_sql=self.candidate_sql,
                max_rounds=settings.max_rounds,
            )
        )
        if settings.probe_rounds > 0:
            started = self._step("probe", 0)
            self.evidence = probe_question(
                read_question(self.question, self.ports.vocabulary),
                extract_constraints(self.question, self.ports.vocabulary),
                self.ports.reader,
                self.ports.database,
                self.trace,
                settings.probe_rounds,
            )
            self._done("probe", 0, started, "ok", f"{len(self.evidence)} findings")
        if settings.validate:
            self.constraints = extract_constraints(self.question, self.ports.vocabulary)
            self.reading = read(self.question, self.constraints, self.ports.vocabulary, self.evidence)
        translation: Translation | None = None
        if self.candidate_sql is None:
            self.qst = self.ports.library.structure(self.question)
            hit = self._paradigm_lookup(self.qst) if self.qst is not None else None
            if hit is not None and hit.adapter_failure:
                failed = self._adapter_failed(hit)
                if failed is not None:
                    return failed
            if hit is not None and hit.adapted:
                # The paradigm's SQL adapted to this question stands for sql0: no generation.
                translation = Translation(
                    self.question,
                    "ok",
                    sql=hit.sql,
                    qst=dict(self.qst or {}),
                    message=f"adapted from paradigm {hit.paradigm_id} ({hit.how})",
                    llm_calls=list(hit.llm_calls),
                    engine=self.ports.generator.name,
                )
                self.generations.append(translation)
            else:
                request = GenerationRequest(self.question, self.evidence, self.examples)
                translation = self._generate(request, 0)
            if translation.status != "ok" or not translation.sql:
                status: FinalStatus = "error" if translation.status == "error" else "not_understood"
                return self._finish(status, translation=translation, message=translation.message)
            sql0 = translation.sql
        else:
            sql0 = self.candidate_sql
        first = self._validate(0, sql0)
        attempts = [first]
        if isinstance(first.error, StoreUnavailable):
            return self._error(first, translation, attempts)
        if not settings.validate:
            return self._unverified(first, translation, attempts, not_run=True)
        if first.passed:
            self._learn(translation, first, "verified")
            return self._finish("verified", translation=translation, answer=first, attempts=attempts)
        latest = first
        for round_number in range(1, settings.max_rounds + 1):
            if not latest.failed:
                break  # only undecided checks: a new candidate cannot be told apart from this one
            rejected = tuple(attempt.sql for attempt in attempts)
            guidance = merge_guidance(latest.failed, round_number, rejected)
            request = GenerationRequest(self.question, self.evidence, self.examples, guidance)
            corrected = self._generate(request, round_number)
            fresh = (
                corrected.status == "ok"
                and corrected.sql is not None
                and not any(same_sql(corrected.sql, sql) for sql in rejected)
            )
            self.trace.record(
                CorrectionRound(
                    round=round_number,
                    guidance=guidance.message,
                    failed_checks=tuple(check.check_id for check in latest.failed),
                    sql=corrected.sql if fresh else None,
                )
            )
            if not fresh or corrected.sql is None:
                break
            latest = self._validate(round_number, corrected.sql)
            attempts.append(latest)
            if latest.passed:
                self._learn(corrected, latest, "corrected")
                return self._finish(
                    "corrected",
                    translation=translation,
                    answer=latest,
                    attempts=attempts,
                    correction_round=round_number,
                )
        if first.result is None:
            return self._error(first, translation, attempts)
        return self._unverified(first, translation, attempts, not_run=False)

    # --- endings -------------------------------------------------------------------------------
    def _paradigm_lookup(self, qst: QstTree) -> ParadigmHit | None:
        started = self._step("paradigm", 0)
        hit = self.ports.library.lookup(self.question, qst)
        if hit is None:
            self.trace.record(ParadigmEvent(outcome="miss", paradigm_id=None, distance=None, detail=""))
            self._done("paradigm", 0, started, "ok", "miss")
            return None
        self.examples = (Example(hit.question, hit.sql),)
        self.trace.record(
            ParadigmEvent(
                outcome="hit", paradigm_id=hit.paradigm_id, distance=hit.distance, detail=hit.question
            )
        )
        if hit.adapted:
            self.trace.record(
                ParadigmEvent(
                    outcome="adapted", paradigm_id=hit.paradigm_id, distance=hit.distance, detail=hit.how
                )
            )
        summary = f"{'adapted' if hit.adapted else 'hit'} {hit.paradigm_id}"
        self._done("paradigm", 0, started, "ok", summary, hit.sql if hit.adapted else None)
        return hit

    def _adapter_failed(self, hit: ParadigmHit) -> PipelineOutcome | None:
        """The adapter role failed on the paradigm found: a final error when its setting says `fail`;
        otherwise None, and the generator answers (the paradigm as its example) with a warning."""
        failure = f"the paradigm adapter failed: {hit.adapter_failure}"
        attempt = Translation(
            self.question, "error", message=failure, llm_calls=list(hit.llm_calls), engine="paradigm_adapter"
        )
        self.generations.append(attempt)  # its calls belong to the answer's record
        if hit.adapter_on_failure == "fail":
            return self._finish("error", translation=attempt, message=failure)
        self.role_warnings.append(f"{failure}; the generator wrote the SQL instead")
        return None

    def _learn(self, translation: Translation | None, attempt: Attempt, status: FinalStatus) -> None:
        """A verified or corrected answer goes into the paradigm library, keyed by the QST the
        lookup saw (so that asking again finds it) with the SQL that passed — the corrected one.
        Its reverse checks are learned by the record after the final status (_record_reverse)."""
        qst = self.qst if self.qst is not None else (translation.qst if translation is not None else None)
        if qst is None:
            return
        learned = self.ports.library.learn(self.question, qst, attempt.sql, status=status)
        if learned is not None:
            self.trace.record(ParadigmEvent(outcome="learned", paradigm_id=learned, distance=None, detail=""))

    def _record_reverse(self, status: FinalStatus, answer: Attempt | None, attempts: list[Attempt]) -> None:
        """After the final status, one call of the library records every attempt's reverse checks:
        uses and misses, and the answer's passed checks learned when it is verified or corrected.
        Nothing it does can change the answer, which is decided already."""
        learning = status in ("verified", "corrected")
        checks = [
            reuse.AttemptChecks(
                item.round, learning and item is answer, item.library_checks, item.llm_library
            )
            for item in attempts
        ]
        if not any(item.ruled or item.llm is not None for item in checks):
            return
        round_number = answer.round if answer is not None else 0
        started = self._step("paradigm", round_number)
        events, summary = reuse.record(checks, self.ports.library, status=status)
        for event in events:
            self.trace.record(event)
        self._done("paradigm", round_number, started, "ok", summary)

    def _error(
        self, first: Attempt, translation: Translation | None, attempts: list[Attempt]
    ) -> PipelineOutcome:
        error = first.error
        message = str(error) if error is not None else "the SQL does not parse"
        code = error.code if error is not None else "query_rejected"
        return self._finish(
            "error",
            translation=translation,
            answer=first,
            attempts=attempts,
            message=message,
            error_code=code,
        )

    def _unverified(
        self, first: Attempt, translation: Translation | None, attempts: list[Attempt], *, not_run: bool
    ) -> PipelineOutcome:
        if not_run:
            warnings = [
                says(self.lang, "未运行验证：答案未经检查", "validation was not run: the answer is unchecked")
            ]
        else:
            warnings = risk_warning(first.failed, first.undecided, self.lang == "zh")
        return self._finish(
            "unverified", translation=translation, answer=first, attempts=attempts, warnings=warnings
        )

    def _finish(
        self,
        status: FinalStatus,
        *,
        translation: Translation | None = None,
        answer: Attempt | None = None,
        attempts: list[Attempt] | None = None,
        message: str = "",
        error_code: str | None = None,
        correction_round: int | None = None,
        warnings: list[str] | None = None,
    ) -> PipelineOutcome:
        all_warnings = [
            *(translation.warnings if translation is not None else []),
            *self.role_warnings,
            *(warnings or []),
        ]
        self._record_reverse(status, answer, attempts or [])
        self.timings["total"] = _ms(self.started)
        self.trace.record(
            RunFinished(
                status=status,
                round=correction_round,
                warnings=tuple(all_warnings),
                ms=self.timings["total"],
            )
        )
        return PipelineOutcome(
            question=self.question,
            lang=self.lang,
            status=status,
            message=message,
            error_code=error_code,
            translation=translation,
            initial_sql=attempts[0].sql if attempts else None,
            answer=answer,
            attempts=attempts or [],
            correction_round=correction_round,
            warnings=all_warnings,
            evidence=self.evidence,
            timings_ms=dict(self.timings),
            trace=self.trace,
            generations=list(self.generations),
            check_llm_calls=list(self.check_llm_calls),
        )


def run_pipeline(
    question: str,
    ports: Ports,
    settings: PipelineSettings | None = None,
    *,
    candidate_sql: str | None = None,
) -> PipelineOutcome:
    """Answer `question` (or validate `candidate_sql` for it, which then replaces sql0)."""
    return _Run(question, ports, settings or PipelineSettings(), candidate_sql).run()
