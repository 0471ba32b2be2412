import { describe, expect, it } from "vitest";

import { formatSql } from "@/components/sql-block";

describe("formatSql", () => {
  it("lays out ClickHouse SQL one clause per line without renaming anything", () => {
    const formatted = formatSql(
      "select ts_code, argMax(close, trade_date) as last from market.daily where trade_date >= toDate('2025-01-01') group by ts_code limit 5 by ts_code",
    );
    const lines = formatted.split("\n").map((line) => line.trim());
    expect(lines[0]).toBe("select");
    expect(lines).toContain("from");
    expect(lines).toContain("group by");
    expect(formatted).toContain("argMax(close, trade_date) as last");
    expect(lines).toContain("5 by ts_code");
  });

  it("returns the text unchanged when it cannot be parsed", () => {
    const broken = "SELECT ((( FROM";
    expect(formatSql(broken)).toBe(broken);
  });
});
