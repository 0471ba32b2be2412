import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { JobResult, SemanticModel } from "@/features/ask/api/jobs";
import { AnswerView } from "@/features/ask/components/answer-view";
import corrected from "@/test/fixtures/corrected-answer.json";
import { renderWithProviders } from "@/test/render";

// The recorded corrected run (see pipeline-timeline.test.tsx) as the job result endpoint returns it.
const RESULT: JobResult = {
  job: {
    id: 7,
    owner: "ana",
    question: corrected.question,
    screen: null,
    status: "done",
    created_at: "2026-12-01T06:00:00Z",
    started_at: "2026-12-01T06:00:00Z",
    finished_at: "2026-12-01T06:00:01Z",
    answer_status: corrected.status,
    message: corrected.message,
    error_code: "",
    sql: corrected.sql,
    row_count: corrected.row_count,
    stream: "/ws/jobs/7/",
  },
  columns: corrected.columns,
  column_types: corrected.column_types,
  rows: corrected.rows,
  row_count: corrected.row_count,
  page: 1,
  page_size: 1000,
  pages: 1,
  initial_sql: corrected.initial_sql,
  qst: null,
  warnings: corrected.warnings,
  checks: corrected.checks,
  rounds: corrected.rounds,
  correction_round: corrected.correction_round,
  timings_ms: corrected.timings_ms,
  engine: corrected.engine,
};

const MODEL = { metrics: [{ column: "total_mv", stored_unit: "万元" }] } as SemanticModel;

describe("AnswerView", () => {
  it("a corrected answer: badge with its round, rows in 亿元, the final SQL and its diff to the first", () => {
    renderWithProviders(<AnswerView result={RESULT} model={MODEL} />, { language: "zh" });
    expect(screen.getByTestId("status-badge")).toHaveTextContent("已纠正");
    expect(screen.getByTestId("status")).toHaveTextContent("第 1 轮纠正后全部通过");
    const table = screen.getByRole("table", { name: "answer-result" });
    const first = within(table).getAllByRole("row")[1];
    expect(first).toHaveTextContent("平安银行");
    expect(first).toHaveTextContent("1,742.65亿元");
    expect(screen.getByRole("link", { name: "下载 CSV" })).toHaveAttribute("href", "/api/jobs/7/result/csv/");
    expect(screen.getByLabelText("answer-sql").textContent).toMatch(/^SELECT\n/);
    const diff = screen.getByLabelText("sql-diff");
    const removed = [...diff.querySelectorAll(".diff-removed")].map((line) => line.textContent).join("\n");
    expect(removed).toContain("total_mv > 5000000");
    expect(diff.querySelectorAll(".diff-added").length).toBeGreaterThan(0);
    expect(screen.getByTestId("result-chart")).toHaveAttribute("data-kind", "histogram");
  });

  it("a verified answer shows no diff", () => {
    const verified = { ...RESULT, initial_sql: RESULT.job.sql, correction_round: null, job: { ...RESULT.job, answer_status: "verified" } };
    renderWithProviders(<AnswerView result={verified} model={MODEL} />);
    expect(screen.getByTestId("status-badge")).toHaveTextContent("Verified");
    expect(screen.queryByLabelText("sql-diff")).toBeNull();
  });
});
