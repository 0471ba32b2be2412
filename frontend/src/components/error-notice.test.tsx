import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ErrorNotice } from "@/components/error-notice";
import { ApiError } from "@/lib/api-client";
import { renderWithProviders } from "@/test/render";

describe("ErrorNotice", () => {
  it("titles a known error code and shows the server's reason", () => {
    renderWithProviders(<ErrorNotice error={new ApiError(400, "query_rejected", "only one statement is allowed")} />);
    const alert = screen.getByRole("alert");
    expect(alert).toHaveTextContent("Refused by the SQL guard");
    expect(alert).toHaveTextContent("only one statement is allowed");
    expect(alert).toHaveAttribute("data-error-code", "query_rejected");
  });

  it("speaks Chinese when the UI does", () => {
    renderWithProviders(<ErrorNotice error={new ApiError(503, "store_unavailable", "cannot open")} />, {
      language: "zh",
    });
    expect(screen.getByRole("alert")).toHaveTextContent("行情数据库不可用");
  });

  it("falls back to a generic title for unknown codes and plain errors", () => {
    renderWithProviders(<ErrorNotice error={new Error("boom")} />);
    expect(screen.getByRole("alert")).toHaveTextContent("Unexpected error");
    expect(screen.getByRole("alert")).toHaveTextContent("boom");
  });
});
