import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { DataTable, formatCell, PAGE_SIZE } from "@/components/data-table";
import { renderWithProviders } from "@/test/render";

function bodyColumn(table: HTMLElement, index: number): string[] {
  const rows = within(table).getAllByRole("row").slice(1);
  return rows.map((row) => within(row).getAllByRole("cell")[index]?.textContent ?? "");
}

describe("DataTable", () => {
  it("formats cells: NULL, integers, fractions, arrays", () => {
    expect(formatCell(null)).toBe("NULL");
    expect(formatCell(1500)).toBe("1500");
    expect(formatCell(12.345678)).toBe("12.3457");
    expect(formatCell(["a", 1])).toBe('["a",1]');
  });

  it("renders rows, right-aligns numbers and marks NULLs", () => {
    renderWithProviders(
      <DataTable
        label="result"
        columns={["ts_code", "close"]}
        rows={[
          ["600519.SH", 1500.5],
          ["000001.SZ", null],
        ]}
      />,
    );
    const table = screen.getByRole("table", { name: "result" });
    expect(bodyColumn(table, 0)).toEqual(["600519.SH", "000001.SZ"]);
    const cells = within(table).getAllByRole("cell");
    expect(cells[1]).toHaveClass("num");
    expect(cells[3]).toHaveClass("null");
    expect(cells[3]).toHaveTextContent("NULL");
  });

  it("sorts by a column when its header is clicked, NULLs last", async () => {
    renderWithProviders(
      <DataTable label="result" columns={["code", "pct"]} rows={[["A", 2], ["B", null], ["C", -1], ["D", 10]]} />,
    );
    const table = screen.getByRole("table", { name: "result" });
    await userEvent.click(within(table).getByRole("button", { name: /pct/ }));
    // Numbers sort largest first on the first click (top gainers), then ascending.
    expect(bodyColumn(table, 0)).toEqual(["D", "A", "C", "B"]);
    await userEvent.click(within(table).getByRole("button", { name: /pct/ }));
    expect(bodyColumn(table, 0)).toEqual(["C", "A", "D", "B"]);
  });

  it("pages through long results", async () => {
    const rows = Array.from({ length: PAGE_SIZE + 5 }, (_, index) => [index]);
    renderWithProviders(<DataTable label="big" columns={["n"]} rows={rows} />);
    const table = screen.getByRole("table", { name: "big" });
    expect(within(table).getAllByRole("row")).toHaveLength(PAGE_SIZE + 1);
    expect(screen.getByTestId("table-page")).toHaveTextContent("Page 1 of 2");
    await userEvent.click(screen.getByRole("button", { name: "Next" }));
    expect(bodyColumn(table, 0)).toEqual(["20", "21", "22", "23", "24"]);
    expect(screen.getByText("25 rows")).toBeVisible();
  });

  it("shows numbers in the units of their metric", () => {
    renderWithProviders(
      <DataTable
        label="units"
        columns={["name", "total_mv", "pe"]}
        rows={[["贵州茅台", 21_000_000, 25.5]]}
        unitOf={(column) =>
          column === "total_mv" ? "万元" : column === "pe" ? "倍" : undefined
        }
      />,
      { language: "zh" },
    );
    const cells = within(screen.getByRole("table", { name: "units" })).getAllByRole("cell");
    expect(cells.map((cell) => cell.textContent)).toEqual(["贵州茅台", "2,100.00亿元", "25.50倍"]);
  });

  it("links the server's CSV of all the rows", () => {
    renderWithProviders(<DataTable label="csv" columns={["n"]} rows={[[1]]} csvHref="/api/jobs/7/result/csv/" />);
    expect(screen.getByRole("link", { name: "Download CSV" })).toHaveAttribute("href", "/api/jobs/7/result/csv/");
  });

  it("says when there are no rows", () => {
    renderWithProviders(<DataTable label="none" columns={["n"]} rows={[]} />, { language: "zh" });
    expect(screen.getByText("查询没有返回任何行。")).toBeVisible();
  });
});
