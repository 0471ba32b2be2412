import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { AskPanel, EXAMPLE_QUESTIONS, MAX_QUESTION_CHARS } from "@/features/ask/components/ask-panel";
import { renderWithProviders } from "@/test/render";

describe("AskPanel", () => {
  it("cannot ask an empty or blank question", async () => {
    renderWithProviders(<AskPanel />);
    const ask = screen.getByRole("button", { name: "Ask" });
    expect(ask).toBeDisabled();
    await userEvent.type(screen.getByRole("textbox", { name: "Ask a question" }), "   ");
    expect(ask).toBeDisabled();
  });

  it("limits the question to the server's length limit", () => {
    renderWithProviders(<AskPanel />);
    expect(screen.getByRole("textbox", { name: "Ask a question" })).toHaveAttribute(
      "maxLength",
      String(MAX_QUESTION_CHARS),
    );
  });

  it("asks an example question when it is clicked and reports the failed request", async () => {
    renderWithProviders(<AskPanel />, { language: "zh" });
    const example = EXAMPLE_QUESTIONS[0] ?? "";
    await userEvent.click(screen.getByRole("button", { name: example }));
    expect(screen.getByRole("textbox", { name: "提问" })).toHaveValue(example);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("无法连接服务器");
  });
});
