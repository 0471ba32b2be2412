import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { beforeEach, describe, expect, it } from "vitest";

import { createQueryClient } from "@/app/provider";
import { routes } from "@/app/router";
import { renderWithProviders } from "@/test/render";

const SYNTHETIC_STATS = {
  database: "market",
  synthetic: true,
  tables: [
    {
      table: "stock_basic",
      rows: 200,
      date_column: "list_date",
      min_date: "1991-04-03",
      max_date: "2025-06-30",
      stocks: 200,
    },
    { table: "income", rows: 0, date_column: "end_date", min_date: null, max_date: null, stocks: null },
  ],
  datasets: [
    {
      dataset: "ashare_demo",
      synthetic: true,
      description: "generated",
      licence: "Apache-2.0",
      loaded_at: "2026-11-30T04:00:00Z",
    },
  ],
  last_sync: null,
};

const ANALYST = { id: 1, username: "ana", email: "", role: "analyst", is_staff: false };

function renderAt(path: string, stats: unknown, me: unknown = ANALYST) {
  const queryClient = createQueryClient();
  queryClient.setQueryData(["market", "stats"], stats);
  queryClient.setQueryData(["auth", "me"], me);
  queryClient.setQueryData(["semantic"], { metrics: [], dimensions: [], industries: {}, indexes: {}, exchanges: {}, boards: {}, industry_groups: [] });
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  return renderWithProviders(<RouterProvider router={router} />, { queryClient });
}

describe("app layout", () => {
  beforeEach(() => localStorage.clear());

  it("shows the synthetic-data banner on every page and the market stats on /market", () => {
    renderAt("/market", SYNTHETIC_STATS);
    expect(screen.getByTestId("synthetic-banner")).toHaveTextContent("SYNTHETIC demo data");
    const table = screen.getByRole("table", { name: "Market data" });
    expect(table).toHaveTextContent("stock_basic");
    expect(table).toHaveTextContent("1991-04-03");
    expect(screen.getByRole("table", { name: "Datasets" })).toHaveTextContent("synthetic");
  });

  it("shows the last market sync: source, time, rows added", () => {
    const lastSync = {
      source_name: "akshare",
      started_at: "2026-12-01T10:30:00Z",
      finished_at: "2026-12-01T10:41:00Z",
      succeeded: true,
      rows_written: 1520,
      rows_added: 1234,
      error: "",
    };
    renderAt("/market", { ...SYNTHETIC_STATS, synthetic: false, last_sync: lastSync });
    const table = screen.getByRole("table", { name: "Last sync" });
    expect(table).toHaveTextContent("akshare");
    expect(table).toHaveTextContent("2026-12-01T10:41:00Z");
    expect(table).toHaveTextContent("1,234");
    expect(table).toHaveTextContent("succeeded");
  });

  it("hides the banner for observed data", () => {
    renderAt("/", { ...SYNTHETIC_STATS, synthetic: false, datasets: [] });
    expect(screen.queryByTestId("synthetic-banner")).toBeNull();
    expect(screen.getByRole("heading", { name: "Ask a question" })).toBeVisible();
  });

  it("asks who is there: the sign-in form stands in for every page, with the synthetic banner", () => {
    renderAt("/screens", SYNTHETIC_STATS, null);
    expect(screen.getByRole("heading", { name: "Sign in" })).toBeVisible();
    expect(screen.getByLabelText("Password")).toHaveAttribute("type", "password");
    expect(screen.queryByRole("link", { name: "Screens" })).toBeNull();
    expect(screen.getByTestId("synthetic-banner")).toBeVisible();
  });

  it("names the signed-in user and role", () => {
    renderAt("/", SYNTHETIC_STATS);
    expect(screen.getByTestId("user-menu")).toHaveTextContent("ana analyst");
    expect(screen.getByRole("link", { name: "History" })).toBeVisible();
    expect(screen.queryByRole("link", { name: "Paradigms" })).toBeNull(); // admins only
  });

  it("shows the paradigm library to admins only", () => {
    renderAt("/paradigms", SYNTHETIC_STATS);
    expect(screen.getByText("Only administrators may open this page.")).toBeVisible();
  });

  it("switches the whole UI between English and Chinese and remembers the choice", async () => {
    renderAt("/console", SYNTHETIC_STATS);
    expect(screen.getByRole("link", { name: "SQL console" })).toBeVisible();
    await userEvent.click(screen.getByTestId("language-toggle"));
    expect(screen.getByRole("link", { name: "SQL 控制台" })).toBeVisible();
    expect(screen.getByTestId("synthetic-banner")).toHaveTextContent("合成演示数据");
    expect(localStorage.getItem("veriscreen.language")).toBe("zh");
    expect(document.documentElement.lang).toBe("zh-CN");
  });
});
