import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { DEFAULT_SQL, SqlConsole } from "@/features/sql-console/components/sql-console";
import { renderWithProviders } from "@/test/render";

// No server runs behind jsdom, so a request fails the way an unreachable backend does.
describe("SqlConsole", () => {
  it("starts with a runnable example statement", () => {
    renderWithProviders(<SqlConsole />);
    expect(screen.getByRole("textbox", { name: "SQL console" })).toHaveValue(DEFAULT_SQL);
  });

  it("runs on Ctrl+Enter and shows why the request failed", async () => {
    renderWithProviders(<SqlConsole />);
    const editor = screen.getByRole("textbox", { name: "SQL console" });
    await userEvent.click(editor);
    await userEvent.keyboard("{Control>}{Enter}{/Control}");
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveAttribute("data-error-code", "network_error");
    expect(alert).toHaveTextContent("Cannot reach the server");
    expect(screen.queryByRole("table")).toBeNull();
  });

  it("cannot run an empty statement", async () => {
    renderWithProviders(<SqlConsole />);
    await userEvent.clear(screen.getByRole("textbox", { name: "SQL console" }));
    expect(screen.getByRole("button", { name: "Run" })).toBeDisabled();
  });
});
