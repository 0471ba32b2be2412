import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { AskAnswer as Answer } from "@/features/ask/api/ask-question";
import { AskAnswer, statusTone } from "@/features/ask/components/ask-answer";
import { renderWithProviders } from "@/test/render";

function answer(overrides: Partial<Answer>): Answer {
  return {
    question: "q",
    status: "ok",
    message: "",
    sql: null,
    qst: null,
    columns: [],
    column_types: [],
    rows: [],
    row_count: 0,
    warnings: [],
    timings_ms: {},
    llm_calls: [],
    engine: "builtin",
    ...overrides,
  };
}

describe("AskAnswer", () => {
  it("shows an answered question: status, formatted SQL, rows, timings", () => {
    renderWithProviders(
      <AskAnswer
        answer={answer({
          sql: "select ts_code, close from market.daily order by close desc limit 2",
          columns: ["ts_code", "close"],
          rows: [
            ["600519.SH", 1500],
            ["300750.SZ", 260.5],
          ],
          row_count: 2,
          timings_ms: { translate: 3.21, execute: 12.5 },
          qst: { label: "select", children: [{ label: "attr:close" }] },
        })}
      />,
    );
    expect(screen.getByLabelText("ask-qst")).toHaveTextContent('"label": "attr:close"');
    expect(screen.getByTestId("ask-status")).toHaveTextContent("Answered");
    expect(screen.getByTestId("ask-status")).toHaveClass("badge-ok");
    expect(screen.getByLabelText("ask-sql").textContent).toMatch(/^select\n {2}ts_code,\n {2}close\nfrom/);
    expect(within(screen.getByRole("table", { name: "ask-result" })).getAllByRole("row")).toHaveLength(3);
    expect(screen.getByTestId("ask-timings")).toHaveTextContent("translate 3.2 ms · execute 12.5 ms");
  });

  it("shows a not-understood answer as a warning with the unmapped part and no table", () => {
    renderWithProviders(
      <AskAnswer answer={answer({ status: "not_understood", message: "could not map 'moon phase'" })} />,
    );
    expect(screen.getByTestId("ask-status")).toHaveClass("badge-warn");
    expect(screen.getByRole("alert")).toHaveTextContent("could not map 'moon phase'");
    expect(screen.queryByRole("table")).toBeNull();
  });

  it("shows the SQL of a refused query next to the reason", () => {
    renderWithProviders(
      <AskAnswer
        answer={answer({ status: "query_timeout", sql: "SELECT 1", message: "ran past its time limit" })}
      />,
      { language: "zh" },
    );
    expect(screen.getByTestId("ask-status")).toHaveTextContent("查询超时");
    expect(screen.getByRole("alert")).toHaveTextContent("ran past its time limit");
    expect(screen.getByLabelText("ask-sql")).toHaveTextContent("SELECT 1");
  });

  it("lists warnings", () => {
    renderWithProviders(<AskAnswer answer={answer({ warnings: ["assumed latest trading day"] })} />);
    expect(screen.getByText("assumed latest trading day")).toBeVisible();
  });

  it("maps statuses to colours, unknown ones to error", () => {
    expect(statusTone("ok")).toBe("ok");
    expect(statusTone("not_understood")).toBe("warn");
    expect(statusTone("query_rejected")).toBe("error");
    expect(statusTone("something_new")).toBe("error");
  });
});
