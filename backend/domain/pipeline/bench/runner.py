"""The validation benchmark (issue 9 item 7), independent of the generator:

- **error detection**: result-changing mutants of the gold SQL (mutants.py), each validated as an
  external candidate with no correction round; detection per error type = share not labelled
  verified (and, stricter, share with a failing check); false alarms on the unmutated gold;
- **noisy generator**: the gold SQL with a mutation rate, as the seed's Table 8: EX of the first SQL
  (no validation) against EX of the pipeline's answer (validation and correction);
- **the engine as it is**: share verified and wrong answers labelled verified or corrected;
- **latency**: ask with and without validation; reverse checks side by side and one after another.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from backend.domain.language.translation import GenerationRequest, Translation
from backend.domain.language_bench.compare import ResultTable, compare_results
from backend.domain.language_bench.dataset import DevItem
from backend.domain.market.errors import MarketError
from backend.domain.market.guard import forget_passed, require_read_only
from backend.domain.market.store import MarketStore
from backend.domain.pipeline.bench.mutant_set import MutantSetItem
from backend.domain.pipeline.bench.mutants import ERROR_TYPES, Mutant, mutate, round_trip
from backend.domain.pipeline.generators import same_sql
from backend.domain.pipeline.ports import ResultRows
from backend.domain.pipeline.run import PipelineOutcome, PipelineSettings, Ports, run_pipeline
from backend.domain.pipeline.validate.checklist import Vocabulary, extract_constraints
from backend.domain.pipeline.validate.reverse.model import ReverseCheck
from backend.domain.pipeline.validate.reverse.reading import read
from backend.domain.pipeline.validate.reverse.runner import run_checks, write_checks
from backend.domain.pipeline.validate.reverse.subject import Subject

TRIES_PER_TYPE = 8  # candidate mutants executed per item and type before giving up on that type


@dataclass(frozen=True)
class MutantCase:
    item: DevItem
    mutant: Mutant


def _table(store: MarketStore, sql: str) -> ResultTable | None:
    try:
        result = store.query(sql)
    except MarketError:
        return None
    return ResultTable(result.columns, result.rows)


def _as_table(result: ResultRows | None) -> ResultTable | None:
    return None if result is None else ResultTable(list(result.columns), [tuple(row) for row in result.rows])


def _same(gold: ResultTable, table: ResultTable | None, item: DevItem) -> bool:
    return table is not None and compare_results(gold, table, order_matters=item.order_matters).match


def gold_tables(items: Sequence[DevItem], store: MarketStore) -> dict[str, ResultTable]:
    """Each answerable item's gold result (items whose gold does not run are left out)."""
    tables = {}
    for item in items:
        if item.answerable:
            table = _table(store, item.gold_sql)
            if table is not None:
                tables[item.id] = table
    return tables


def result_changing_mutants(
    items: Sequence[DevItem], store: MarketStore, gold: dict[str, ResultTable], per_type: int, seed: int
) -> list[MutantCase]:
    """Per item and error type, up to `per_type` mutants that run and change the gold's result."""
    cases: list[MutantCase] = []
    for item in items:
        if item.id not in gold or not _same(gold[item.id], _table(store, round_trip(item.gold_sql)), item):
            continue  # sqlglot cannot write this gold back faithfully: its mutants would not be single edits
        by_type: dict[str, list[Mutant]] = defaultdict(list)
        for mutant in mutate(item.gold_sql):
            by_type[mutant.error_type].append(mutant)
        rng = random.Random(f"{seed}:{item.id}")
        for error_type in ERROR_TYPES:
            candidates = by_type.get(error_type, [])
            rng.shuffle(candidates)
            kept = 0
            for mutant in candidates[:TRIES_PER_TYPE]:
                table = _table(store, mutant.sql)
                if table is not None and not _same(gold[item.id], table, item):
                    cases.append(MutantCase(item, mutant))
                    kept += 1
                    if kept == per_type:
                        break
    return cases


@dataclass
class Verdicts:
    """How validation labelled a set of candidates."""

    total: int = 0
    not_verified: int = 0  # labelled unverified (or error): not presented as checked
    failing: int = 0  # at least one check failed (a false alarm when the candidate is right)

    def add(self, outcome: PipelineOutcome) -> None:
        self.total += 1
        self.not_verified += outcome.status not in ("verified", "corrected")
        self.failing += bool(outcome.answer is not None and outcome.answer.failed)

    def to_dict(self) -> dict[str, float | int | None]:
        return {
            "total": self.total,
            "not_verified": self.not_verified,
            "failing": self.failing,
            "not_verified_rate": _rate(self.not_verified, self.total),
            "failing_rate": _rate(self.failing, self.total),
        }


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def validate_only(ports: Ports, question: str, sql: str) -> PipelineOutcome:
    return run_pipeline(question, ports, PipelineSettings(max_rounds=0), candidate_sql=sql)


def detection(ports: Ports, cases: Sequence[MutantCase]) -> tuple[dict[str, Verdicts], list[dict[str, str]]]:
    """Verdicts per error type, and the mutants labelled verified (missed), for reading."""
    per_type: dict[str, Verdicts] = defaultdict(Verdicts)
    missed: list[dict[str, str]] = []
    for case in cases:
        outcome = validate_only(ports, case.item.question, case.mutant.sql)
        per_type[case.mutant.error_type].add(outcome)
        per_type["all"].add(outcome)
        if outcome.status in ("verified", "corrected"):
            missed.append(
                {"item": case.item.id, "type": case.mutant.error_type, "note": case.mutant.description}
            )
    return per_type, missed


def false_alarms(
    ports: Ports, items: Sequence[DevItem], gold: dict[str, ResultTable]
) -> tuple[Verdicts, list[dict[str, str]]]:
    verdicts = Verdicts()
    alarms = []
    for item in items:
        if item.id not in gold:
            continue
        outcome = validate_only(ports, item.question, item.gold_sql)
        verdicts.add(outcome)
        for check in outcome.answer.failed if outcome.answer is not None else []:
            alarms.append({"item": item.id, "check": check.kind, "reason": check.reason})
    return verdicts, alarms


@dataclass
class NoisyGold:
    """A generator that writes the gold SQL, or with probability `noise` one of its mutants; every
    regeneration is a fresh draw (other than the SQL already refused)."""

    item: DevItem
    mutants: list[Mutant]
    noise: float
    rng: random.Random
    name: str = "noisy-gold"
    drawn: list[str] = field(default_factory=list)

    def generate(self, request: GenerationRequest) -> Translation:
        refused = request.guidance.rejected_sql if request.guidance is not None else ()
        options = [m.sql for m in self.mutants if not any(same_sql(m.sql, r) for r in refused)]
        gold_left = not any(same_sql(self.item.gold_sql, r) for r in refused)
        if options and (self.rng.random() < self.noise or not gold_left):
            sql = self.rng.choice(options)
        elif gold_left:
            sql = self.item.gold_sql
        else:
            return Translation(request.question, "not_understood", message="nothing else", engine=self.name)
        self.drawn.append(sql)
        return Translation(request.question, "ok", sql=sql, engine=self.name)


def noisy_generator(
    base: Ports,
    items: Sequence[DevItem],
    gold: dict[str, ResultTable],
    cases: Sequence[MutantCase],
    noise: float,
    seed: int,
    max_rounds: int,
) -> dict[str, object]:
    mutants: dict[str, list[Mutant]] = defaultdict(list)
    for case in cases:
        mutants[case.item.id].append(case.mutant)
    right_first = right_final = noisy = 0
    wrong_labelled: list[dict[str, str]] = []
    statuses: Counter[str] = Counter()
    used = [item for item in items if item.id in gold]
    for item in used:
        generator = NoisyGold(item, mutants[item.id], noise, random.Random(f"{seed}:{item.id}"))
        ports = Ports(base.reader, generator, base.vocabulary, base.database)
        outcome = run_pipeline(item.question, ports, PipelineSettings(max_rounds=max_rounds))
        statuses[outcome.status] += 1
        first = outcome.attempts[0].result if outcome.attempts else None
        first_right = _same(gold[item.id], _as_table(first), item)
        final = outcome.answer.result if outcome.answer is not None else None
        final_right = _same(gold[item.id], _as_table(final), item)
        noisy += not same_sql(generator.drawn[0], item.gold_sql) if generator.drawn else 0
        right_first += first_right
        right_final += final_right
        if outcome.status in ("verified", "corrected") and not final_right and outcome.answer is not None:
            wrong_labelled.append({"item": item.id, "status": outcome.status, "sql": outcome.answer.sql})
    return {
        "items": len(used),
        "noise": noise,
        "first_sql_mutated": noisy,
        "effective_noise": _rate(noisy, len(used)),
        "ex_without_validation": _rate(right_first, len(used)),
        "ex_with_validation": _rate(right_final, len(used)),
        "wrong_labelled_verified_or_corrected": len(wrong_labelled),
        "wrong_labelled_details": wrong_labelled,
        "statuses": dict(statuses),
        "max_rounds": max_rounds,
    }


def engine_answers(ports: Ports, items: Sequence[DevItem], gold: dict[str, ResultTable]) -> dict[str, object]:
    """The configured generator on real questions: statuses, EX, and wrong answers by label."""
    statuses: Counter[str] = Counter()
    right_by_status: Counter[str] = Counter()
    wrong_labelled: list[str] = []
    used = [item for item in items if item.id in gold]
    for item in used:
        outcome = run_pipeline(item.question, ports)
        statuses[outcome.status] += 1
        result = outcome.answer.result if outcome.answer is not None else None
        right = _same(gold[item.id], _as_table(result), item)
        right_by_status[outcome.status] += right
        if outcome.status in ("verified", "corrected") and not right:
            wrong_labelled.append(item.id)
    return {
        "items": len(used),
        "statuses": dict(statuses),
        "right_by_status": dict(right_by_status),
        "verified_share": _rate(statuses["verified"] + statuses["corrected"], len(used)),
        "ex": _rate(sum(right_by_status.values()), len(used)),
        "wrong_labelled_verified_or_corrected": wrong_labelled,
    }


@dataclass(frozen=True)
class Timed:
    ms: float  # median wall time of the timed runs
    cores: float  # median of this process's CPU time over wall time: the cores the run actually got


def _alternated(
    first: Callable[[], object],
    second: Callable[[], object],
    repeats: int,
    fresh: Callable[[], None] = lambda: None,
) -> tuple[Timed, Timed]:
    """Two ways of doing the same work, in turns: once each untimed (warms the store's caches for
    both alike), then `repeats` rounds whose order flips every round (first-second, second-first, …),
    so that the machine's load drifting during the run falls on both sides alike rather than on
    whichever always runs first. `fresh` runs before every timed run (the guard forgets the texts it
    passed, so each run guards its SQL as a first ask does). The cores a run got tell whether the
    machine had a second core to give at all: threads cannot gain on a side that got one."""
    works = (first, second)
    times: tuple[list[float], list[float]] = ([], [])
    cores: tuple[list[float], list[float]] = ([], [])
    for work in works:
        work()
    for round_number in range(repeats):
        for side in (0, 1) if round_number % 2 == 0 else (1, 0):
            fresh()
            started, cpu_started = time.perf_counter(), time.process_time()
            works[side]()
            wall = time.perf_counter() - started
            times[side].append(wall * 1000)
            cores[side].append((time.process_time() - cpu_started) / wall if wall > 0 else 0.0)
    return (
        Timed(statistics.median(times[0]), statistics.median(cores[0])),
        Timed(statistics.median(times[1]), statistics.median(cores[1])),
    )


def _summary(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
        "n": len(ordered),
    }


def _guard_ms(checks: Sequence[ReverseCheck]) -> float:
    """The guard's time on the checks' SQL, as the store guards it on a first ask: Python under the
    GIL, which threads cannot overlap."""
    forget_passed()
    started = time.perf_counter()
    for check in checks:
        require_read_only(check.sql)
    return (time.perf_counter() - started) * 1000


def _machine() -> dict[str, object]:
    return {"cpus": os.cpu_count(), "load_average_1_5_15": [round(load, 2) for load in os.getloadavg()]}


def latency(
    ports: Ports,
    items: Sequence[DevItem],
    gold: dict[str, ResultTable],
    store: MarketStore,
    vocabulary: Vocabulary,
    workers: int,
    repeats: int = 3,
) -> dict[str, object]:
    """One run, side by side: per question, ask with and without validation in turns; per gold
    answer, its reverse checks with `workers` threads and one after another in turns (_alternated).
    The machine's load is recorded before and after, since a loaded machine hides what threads gain."""
    before = _machine()
    with_validation: list[float] = []
    without_validation: list[float] = []
    plain = PipelineSettings(validate=False, probe_rounds=0, max_rounds=0)
    for item in items:
        validated, unvalidated = _alternated(
            partial(run_pipeline, item.question, ports),
            partial(run_pipeline, item.question, ports, plain),
            repeats,
            fresh=forget_passed,
        )
        with_validation.append(validated.ms)
        without_validation.append(unvalidated.ms)
    per_question: list[dict[str, object]] = []
    parallel: list[float] = []
    sequential: list[float] = []
    cores: dict[str, list[float]] = {"parallel": [], "sequential": []}
    for item in items:
        if item.id not in gold:
            continue
        r0 = store.query(item.gold_sql)
        reading = read(item.question, extract_constraints(item.question, vocabulary), vocabulary)
        checks = write_checks(Subject(reading, r0, store.database))
        if len(checks) < 2:
            continue
        side_by_side, one_by_one = _alternated(
            partial(run_checks, checks, store, r0, workers=workers),
            partial(run_checks, checks, store, r0, workers=1),
            repeats,
            fresh=forget_passed,
        )
        parallel.append(side_by_side.ms)
        sequential.append(one_by_one.ms)
        cores["parallel"].append(side_by_side.cores)
        cores["sequential"].append(one_by_one.cores)
        per_question.append(
            {
                "item": item.id,
                "checks": len(checks),
                "parallel_ms": round(side_by_side.ms, 2),
                "sequential_ms": round(one_by_one.ms, 2),
                "ratio": round(side_by_side.ms / one_by_one.ms, 3),
                "parallel_cores": round(side_by_side.cores, 2),
                "sequential_cores": round(one_by_one.cores, 2),
                "guard_ms": round(_guard_ms(checks), 2),
            }
        )
    return {
        "machine_before": before,
        "machine_after": _machine(),
        "ask_with_validation": _summary(with_validation),
        "ask_without_validation": _summary(without_validation),
        "reverse_checks_parallel": _summary(parallel) if parallel else None,
        "reverse_checks_sequential": _summary(sequential) if sequential else None,
        "parallel_over_sequential_total": round(sum(parallel) / sum(sequential), 3) if sequential else None,
        "parallel_over_sequential_median": (
            round(statistics.median(p / s for p, s in zip(parallel, sequential, strict=True)), 3)
            if sequential
            else None
        ),
        "reverse_checks_cores_median": (
            {side: round(statistics.median(got), 2) for side, got in cores.items()} if sequential else None
        ),
        "reverse_checks_per_question": per_question,
        "workers": workers,
        "repeats": repeats,
    }


def detection_table(per_type: dict[str, Verdicts]) -> dict[str, dict[str, float | int | None]]:
    return {key: per_type[key].to_dict() for key in [*ERROR_TYPES, "all"] if key in per_type}


@dataclass(frozen=True)
class BenchSettings:
    per_type: int = 2  # mutants kept per item and error type
    noise: float = 0.13
    seed: int = 20250908
    workers: int = 3
    max_rounds: int = 3
    repeats: int = 3


def measure_set(
    ports: Ports,
    items: Sequence[DevItem],
    store: MarketStore,
    settings: BenchSettings,
    log: Callable[[str], None],
) -> tuple[dict[str, object], dict[str, ResultTable], list[MutantCase]]:
    gold = gold_tables(items, store)
    log(f"{len(gold)} gold results")
    cases = result_changing_mutants(items, store, gold, settings.per_type, settings.seed)
    log(f"{len(cases)} result-changing mutants")
    detected, missed = detection(ports, cases)
    log("mutants validated")
    alarms, details = false_alarms(ports, items, gold)
    log("gold validated")
    engine = engine_answers(ports, items, gold)
    log("engine answers validated")
    report = {
        "items": len(items),
        "gold_results": len(gold),
        "mutants": len(cases),
        "detection": detection_table(detected),
        "missed": missed,
        "gold": {**alarms.to_dict(), "false_alarm_details": details},
        "engine": engine,
    }
    return report, gold, cases


def measure_mutant_set(
    ports: Ports,
    store: MarketStore,
    items: Sequence[MutantSetItem],
    source: str,
    log: Callable[[str], None],
) -> dict[str, object]:
    """A hand-written mutant set: detection per type on the mutants that run and change the gold's
    result (the others are listed, not counted), false alarms on the golds."""
    gold = gold_tables([entry.item for entry in items], store)
    cases: list[MutantCase] = []
    left_out: list[dict[str, str]] = []
    for entry in items:
        item = entry.item
        if item.id not in gold:
            left_out += [
                {"item": item.id, "type": m.error_type, "why": "the gold SQL does not run"}
                for m in entry.mutants
            ]
            continue
        for mutant in entry.mutants:
            table = _table(store, mutant.sql)
            if table is None or _same(gold[item.id], table, item):
                why = "does not run" if table is None else "gives the gold's result"
                left_out.append({"item": item.id, "type": mutant.error_type, "why": why, "note": mutant.note})
                continue
            cases.append(MutantCase(item, Mutant(mutant.error_type, mutant.note, mutant.sql)))
    log(f"mutant set: {len(gold)} gold results, {len(cases)} result-changing mutants")
    per_type, missed = detection(ports, cases)
    alarms, details = false_alarms(ports, [entry.item for entry in items], gold)
    return {
        "path": source,
        "items": len(items),
        "gold_results": len(gold),
        "mutants_written": sum(len(entry.mutants) for entry in items),
        "mutants": len(cases),
        "detection": detection_table(per_type),
        "missed": missed,
        "left_out": left_out,
        "gold": {**alarms.to_dict(), "false_alarm_details": details},
    }


def data_summary(store: MarketStore) -> dict[str, object]:
    first, last, stocks = store.query(
        f"SELECT min(trade_date), max(trade_date), uniqExact(ts_code) FROM {store.database}.daily"
    ).rows[0]
    return {"first_day": str(first), "last_day": str(last), "stocks_with_bars": stocks}


def run_benchmark(
    ports: Ports,
    store: MarketStore,
    dev: Sequence[DevItem],
    blind: Sequence[DevItem],
    settings: BenchSettings,
    log: Callable[[str], None],
    mutant_set: Sequence[MutantSetItem] = (),
    mutant_set_source: str = "",
) -> dict[str, object]:
    log("dev set")
    dev_report, dev_gold, dev_cases = measure_set(ports, dev, store, settings, log)
    log("blind set")
    blind_report, _blind_gold, _blind_cases = measure_set(ports, blind, store, settings, log)
    log("noisy generator")
    noisy = noisy_generator(
        ports, dev, dev_gold, dev_cases, settings.noise, settings.seed, settings.max_rounds
    )
    log("latency")
    timing = latency(ports, dev, dev_gold, store, ports.vocabulary, settings.workers, settings.repeats)
    hand = measure_mutant_set(ports, store, mutant_set, mutant_set_source, log) if mutant_set else None
    return {
        "data": data_summary(store),
        "settings": {
            "per_type": settings.per_type,
            "noise": settings.noise,
            "seed": settings.seed,
            "workers": settings.workers,
            "max_rounds": settings.max_rounds,
            "repeats": settings.repeats,
        },
        "dev": dev_report,
        "blind": blind_report,
        "noisy_generator": noisy,
        "latency": timing,
        **({"mutant_set": hand} if hand is not None else {}),
    }


def _percent(value: object) -> str:
    return f"{100 * value:5.1f}%" if isinstance(value, float) else "    —"


def _detection_lines(part: dict[str, Any]) -> list[str]:
    lines = [f"{'error type':<22}{'mutants':>8}  {'not verified':>12}  {'a check fails':>13}"]
    for error_type, row in part["detection"].items():
        lines.append(
            f"{error_type:<22}{row['total']:>8}  {_percent(row['not_verified_rate']):>12}  "
            f"{_percent(row['failing_rate']):>13}"
        )
    gold = part["gold"]
    lines.append(
        f"gold (unmutated): false alarms (a check fails) {gold['failing']}/{gold['total']} "
        f"= {_percent(gold['failing_rate']).strip()}; not verified {gold['not_verified']}/{gold['total']}"
    )
    return lines


def format_report(report: dict[str, object]) -> str:
    lines: list[str] = [f"data: {report['data']}"]
    for name in ("dev", "blind"):
        part = report.get(name)
        if not isinstance(part, dict):
            continue
        lines.append(
            f"== {name} set: {part['gold_results']} gold results, {part['mutants']} result-changing mutants"
        )
        lines += _detection_lines(part)
        lines += [f"labelled verified: {entry}" for entry in part.get("missed", [])]
        engine = part["engine"]
        lines.append(
            f"engine answers: verified or corrected {_percent(engine['verified_share']).strip()}, "
            f"EX {_percent(engine['ex']).strip()}, statuses {engine['statuses']}, wrong answers labelled "
            f"verified/corrected: {len(engine['wrong_labelled_verified_or_corrected'])} "
            f"{engine['wrong_labelled_verified_or_corrected']}"
        )
    noisy = report.get("noisy_generator")
    if isinstance(noisy, dict):
        lines.append(_noisy_line(noisy))
    timing = report.get("latency")
    if isinstance(timing, dict):
        lines += latency_lines(timing)
    hand = report.get("mutant_set")
    if isinstance(hand, dict):
        lines.append(
            f"== hand-written mutant set {hand['path']}: {hand['items']} items, "
            f"{hand['gold_results']} gold results, {hand['mutants']} of {hand['mutants_written']} mutants "
            f"run and change the result"
        )
        lines += _detection_lines(hand)
        lines += [f"left out: {entry}" for entry in hand["left_out"]]
        lines += [f"labelled verified: {entry}" for entry in hand["missed"]]
    return "\n".join(lines)


def _noisy_line(noisy: dict[str, Any]) -> str:
    return (
        f"== noisy generator (gold SQL, mutation rate {noisy['noise']}, "
        f"effective {noisy['effective_noise']}): "
        f"EX without validation {_percent(noisy['ex_without_validation']).strip()} → with validation "
        f"{_percent(noisy['ex_with_validation']).strip()}; wrong labelled verified/corrected "
        f"{noisy['wrong_labelled_verified_or_corrected']} "
        f"{[entry['item'] for entry in noisy.get('wrong_labelled_details', [])]}; "
        f"statuses {noisy['statuses']}"
    )


def latency_lines(timing: dict[str, Any]) -> list[str]:
    before, after = timing["machine_before"], timing["machine_after"]
    lines = [
        f"== latency (one run, in turns, median of {timing['repeats']} per question; {before['cpus']} CPUs, "
        f"load average {before['load_average_1_5_15']} before, {after['load_average_1_5_15']} after)",
        f"ask with validation {timing['ask_with_validation']}, without {timing['ask_without_validation']}",
        f"reverse checks, {timing['workers']} threads {timing['reverse_checks_parallel']} vs one by one "
        f"{timing['reverse_checks_sequential']}; ratio parallel/sequential (total) "
        f"{timing['parallel_over_sequential_total']}, median per question "
        f"{timing['parallel_over_sequential_median']}",
        f"CPU cores this process got in the reverse checks (median per question) "
        f"{timing['reverse_checks_cores_median']}: threads gain only where the parallel side got over one",
    ]
    lines += [
        f"  {row['item']:<12} {row['checks']:>2} checks  parallel {row['parallel_ms']:>8.1f} ms  sequential "
        f"{row['sequential_ms']:>8.1f} ms  ratio {row['ratio']:.3f}  cores {row['parallel_cores']:.2f}/"
        f"{row['sequential_cores']:.2f}  guard {row['guard_ms']:>7.1f} ms"
        for row in timing["reverse_checks_per_question"]
    ]
    return lines
