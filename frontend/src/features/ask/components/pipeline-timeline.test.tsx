import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { StreamEvent } from "@/features/ask/api/pipeline-events";
import { buildTimeline, PipelineTimeline } from "@/features/ask/components/pipeline-timeline";
import corrected from "@/test/fixtures/corrected-answer.json";
import notUnderstood from "@/test/fixtures/not-understood-answer.json";
import { renderWithProviders } from "@/test/render";

// Recorded with `manage.py validate "总市值超过1000亿的股票" --sql <a wrong threshold> --json`: the
// checks catch the wrong SQL, correction round 1 passes them all.
const EVENTS = corrected.trace as StreamEvent[];

describe("PipelineTimeline", () => {
  it("folds a recorded run into steps per round with their verdicts", () => {
    const items = buildTimeline(EVENTS);
    const rounds = items.filter((item) => item.kind === "round").map((item) => (item.kind === "round" ? item.round : -1));
    expect(rounds).toEqual([0, 1]);
    const steps = items.flatMap((item) => (item.kind === "step" ? [`${item.view.step}:${item.view.round}:${item.view.outcome}`] : []));
    expect(steps).toEqual([
      "probe:0:ok",
      "execute:0:ok",
      "checklist:0:failed",
      "reverse_checks:0:failed",
      "correct:1:ok",
      "execute:1:ok",
      "checklist:1:ok",
      "reverse_checks:1:ok",
    ]);
    expect(items.at(-1)?.kind).toBe("finished");
  });

  it("shows the reverse questions in readable form with pass/fail and what a failure blames", () => {
    renderWithProviders(<PipelineTimeline events={EVENTS} live={false} />, { language: "zh" });
    const checks = screen.getAllByTestId("timeline-check");
    expect(checks).toHaveLength(13);
    const failed = checks.filter((check) => check.dataset.verdict === "fail");
    expect(failed.map((check) => check.textContent)).toEqual([
      expect.stringContaining("总市值超过1000亿：total_mv > 10,000,000（万元）"),
      expect.stringContaining("有没有返回的股票在最新交易日不满足“总市值超过1000亿”？"),
    ]);
    expect(within(failed[1] as HTMLElement).getByTestId("timeline-attribution")).toHaveTextContent("归因: 条件");
    expect(screen.getByTestId("timeline-correction")).toHaveTextContent("第 1 轮纠正");
    expect(screen.getByText("第 1 轮纠正")).toBeVisible(); // the round header
    expect(screen.getByTestId("timeline-finished")).toHaveTextContent("结束：已纠正");
  });

  it("fills in as events arrive: a started step runs until it finishes", () => {
    const partial = EVENTS.slice(0, 13); // up to the first reverse check's verdict
    const { rerender } = renderWithProviders(<PipelineTimeline events={partial} live />);
    expect(screen.getByRole("region", { name: "Validation timeline" })).toHaveAttribute("aria-busy", "true");
    const running = screen.getAllByTestId("timeline-step").at(-1);
    expect(running).toHaveAttribute("data-step", "reverse_checks");
    expect(running).toHaveAttribute("data-outcome", "running");
    expect(screen.queryByTestId("timeline-finished")).toBeNull();
    rerender(<PipelineTimeline events={EVENTS} live={false} />);
    expect(screen.getAllByTestId("timeline-step").filter((step) => step.dataset.outcome === "running")).toHaveLength(0);
    expect(screen.getByTestId("timeline-finished")).toHaveTextContent("Finished: Corrected");
  });

  it("names the failed generation of a question it could not read", () => {
    renderWithProviders(<PipelineTimeline events={notUnderstood.trace as StreamEvent[]} live={false} />);
    const generate = screen.getAllByTestId("timeline-step").find((step) => step.dataset.step === "generate");
    expect(generate).toHaveAttribute("data-outcome", "failed");
    expect(generate).toHaveTextContent("could not map: 'phase', 'moon'");
  });

  it("keeps events it does not know, by name, and the job's failure", () => {
    const events: StreamEvent[] = [
      { seq: 1, at_ms: 0, type: "something_new" },
      { seq: 2, at_ms: 1, type: "job_finished", job_status: "cancelled", answer_status: "", error_code: "cancelled", message: "", row_count: 0 },
    ];
    renderWithProviders(<PipelineTimeline events={events} live={false} />);
    expect(screen.getByText("something_new")).toBeVisible();
    expect(screen.getByTestId("timeline-job")).toHaveTextContent("The job was cancelled.");
  });
});
