import { describe, expect, it } from "vitest";

import { chooseChart, histogram, movingAverage } from "@/components/chart-choice";

const days = (n: number) => Array.from({ length: n }, (_, i) => `2025-09-${String(i + 1).padStart(2, "0")}`);

describe("chooseChart", () => {
  it("one stock over days: its price with moving averages", () => {
    const rows = days(25).map((day, i) => ["600519.SH", "贵州茅台", day, 1500 + i]);
    const choice = chooseChart({
      columns: ["ts_code", "name", "trade_date", "close"],
      columnTypes: ["String", "String", "Date", "Float64"],
      rows,
      sql: "SELECT … ORDER BY trade_date",
    });
    expect(choice).toEqual({ kind: "price", date: 2, close: 3, title: "贵州茅台" });
  });

  it("a group aggregate: bars per group", () => {
    const choice = chooseChart({
      columns: ["industry", "avg_pe"],
      columnTypes: ["String", "Nullable(Float64)"],
      rows: [["白酒", 30.1], ["银行", 5.2], ["半导体", 60.4]],
      sql: "SELECT industry, avg(pe) AS avg_pe FROM … GROUP BY industry",
    });
    expect(choice).toEqual({ kind: "bars", label: 0, value: 1 });
  });

  it("a ranking of stocks: bars per stock name", () => {
    const choice = chooseChart({
      columns: ["ts_code", "name", "trade_date", "total_mv"],
      columnTypes: ["String", "String", "Date", "Float64"],
      rows: [["A", "甲", "2025-09-08", 3], ["B", "乙", "2025-09-08", 2], ["C", "丙", "2025-09-08", 1]],
      sql: "SELECT … ORDER BY total_mv DESC LIMIT 10",
    });
    expect(choice).toEqual({ kind: "bars", label: 1, value: 3 });
  });

  it("a screen (stocks meeting conditions): the distribution of its first measure", () => {
    const rows = Array.from({ length: 30 }, (_, i) => [`${i}.SZ`, `s${i}`, "2025-09-08", 5 + i / 3]);
    const choice = chooseChart({
      columns: ["ts_code", "name", "trade_date", "pe"],
      columnTypes: ["String", "String", "Date", "Float64"],
      rows,
      sql: "SELECT … WHERE pe < 15",
    });
    expect(choice).toEqual({ kind: "histogram", value: 3 });
  });

  it("top N per group: the measure the SQL ranks by, never the rank itself", () => {
    const rows = Array.from({ length: 12 }, (_, i) => [`行业${i % 4}`, (i % 3) + 1, `${i}.SH`, `s${i}`, 3 + i, 1e6 * i]);
    const choice = chooseChart({
      columns: ["industry", "rank_in_group", "ts_code", "name", "pct_chg", "total_mv"],
      columnTypes: ["String", "UInt64", "String", "String", "Float64", "Float64"],
      rows,
      sql: "SELECT … row_number() OVER (PARTITION BY b.industry ORDER BY d.pct_chg DESC, b.ts_code) AS rank_in_group …",
    });
    expect(choice).toEqual({ kind: "histogram", value: 4 });
  });

  it("no chart for a single row, a count, or rows without a measure", () => {
    const base = { columnTypes: ["String", "UInt64"], sql: null };
    expect(chooseChart({ ...base, columns: ["name", "n"], rows: [["a", 1]] }).kind).toBe("none");
    expect(
      chooseChart({ columns: ["ts_code", "name"], columnTypes: ["String", "String"], rows: [["a", "b"], ["c", "d"]], sql: null }).kind,
    ).toBe("none");
  });
});

describe("chart helpers", () => {
  it("moving averages start once the window is full", () => {
    expect(movingAverage([1, 2, 3, 4, null, 6], 3)).toEqual([null, null, 2, 3, null, null]);
  });

  it("histogram bins count every value once", () => {
    const bins = histogram([1, 2, 2, 3, 4, 5, 5, 5, 10]);
    expect(bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(9);
    expect(bins[0]?.from).toBe(1);
    expect(bins.at(-1)?.to).toBe(10);
  });
});
