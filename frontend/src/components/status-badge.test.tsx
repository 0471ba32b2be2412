import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { StatusBadge, statusTone, unreadWords } from "@/components/status-badge";
import { renderWithProviders } from "@/test/render";

describe("StatusBadge", () => {
  it("verified: green, every check passed", () => {
    renderWithProviders(<StatusBadge status="verified" />);
    expect(screen.getByTestId("status-badge")).toHaveTextContent("Verified");
    expect(screen.getByTestId("status-badge")).toHaveClass("badge-ok");
    expect(screen.getByTestId("status")).toHaveTextContent("Every check passed");
  });

  it("corrected: says which round passed", () => {
    renderWithProviders(<StatusBadge status="corrected" correctionRound={2} />, { language: "zh" });
    expect(screen.getByTestId("status-badge")).toHaveTextContent("已纠正");
    expect(screen.getByTestId("status")).toHaveTextContent("第 2 轮纠正后全部通过");
  });

  it("unverified: a risk warning and the failed checks", () => {
    renderWithProviders(<StatusBadge status="unverified" warnings={["未通过验证，结果可能有误。"]} />);
    expect(screen.getByTestId("status-badge")).toHaveClass("badge-warn");
    expect(screen.getByRole("alert")).toHaveTextContent("Risk: this answer failed checks and may be wrong");
    expect(screen.getByTestId("risk-warnings")).toHaveTextContent("未通过验证，结果可能有误。");
  });

  it("not understood: the words it did not read", () => {
    renderWithProviders(<StatusBadge status="not_understood" message="could not map: 'phase', 'moon'" />);
    expect(screen.getByTestId("status-badge")).toHaveTextContent("Not understood");
    const words = screen.getByTestId("unread-words");
    expect([...words.querySelectorAll("mark")].map((mark) => mark.textContent)).toEqual(["phase", "moon"]);
  });

  it("an error shows the server's message", () => {
    renderWithProviders(<StatusBadge status="query_timeout" message="ran past its time limit" />);
    expect(screen.getByTestId("status-badge")).toHaveClass("badge-error");
    expect(screen.getByTestId("status")).toHaveTextContent("Timed out");
    expect(screen.getByTestId("status")).toHaveTextContent("ran past its time limit");
  });

  it("maps statuses to tones, unknown ones to error", () => {
    expect(statusTone("verified")).toBe("ok");
    expect(statusTone("corrected")).toBe("info");
    expect(statusTone("running")).toBe("pending");
    expect(statusTone("something_new")).toBe("error");
    expect(unreadWords("could not place: '各' (no rule reads these words)")).toEqual(["各"]);
  });
});
