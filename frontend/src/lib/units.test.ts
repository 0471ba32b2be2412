import { describe, expect, it } from "vitest";

import { formatWithUnit, type UnitMetric, unitForColumn } from "@/lib/units";

const METRICS: UnitMetric[] = [
  { column: "close", stored_unit: "元" },
  { column: "total_mv", stored_unit: "万元" },
  { column: "amount", stored_unit: "千元" },
  { column: "pct_chg", stored_unit: "%" },
  { column: "pe", stored_unit: "倍" },
  { column: "pe_ttm", stored_unit: "倍" },
  { column: "n_income_attr_p", stored_unit: "元" },
  { column: "float_share", stored_unit: "万股" },
];

describe("unitForColumn", () => {
  it("finds the metric a result column is named after", () => {
    expect(unitForColumn("total_mv", METRICS)).toBe("万元");
    expect(unitForColumn("avg_total_mv", METRICS)).toBe("万元");
    expect(unitForColumn("n_income_attr_p_2023", METRICS)).toBe("元");
    expect(unitForColumn("pe_ttm", METRICS)).toBe("倍"); // the longest match, not `pe`
    expect(unitForColumn("PCT_CHG", METRICS)).toBe("%");
  });

  it("gives no unit to counts, codes and words that only look alike", () => {
    expect(unitForColumn("stock_count", METRICS)).toBeUndefined();
    expect(unitForColumn("ts_code", METRICS)).toBeUndefined();
    expect(unitForColumn("closed_days", METRICS)).toBeUndefined();
  });
});

describe("formatWithUnit", () => {
  it("shows money in 亿元 / 万元 and in billions / millions of yuan", () => {
    const mv = "万元";
    expect(formatWithUnit(23_456_789, mv, "zh")).toBe("2,345.68亿元"); // 234,567,890,000 元
    expect(formatWithUnit(23_456_789, mv, "en")).toBe("234.57 bn yuan");
    expect(formatWithUnit(512.5, mv, "zh")).toBe("512.50万元");
    expect(formatWithUnit(512.5, mv, "en")).toBe("5.13 m yuan");
    expect(formatWithUnit(1530.2, "元", "zh")).toBe("1,530.20元");
    expect(formatWithUnit(-3.2e9, "元", "zh")).toBe("-32.00亿元");
  });

  it("shows ratios in % and multiples in 倍 / ×", () => {
    expect(formatWithUnit(9.987, "%", "en")).toBe("9.99%");
    expect(formatWithUnit(15.234, "倍", "zh")).toBe("15.23倍");
    expect(formatWithUnit(15.234, "倍", "en")).toBe("15.23×");
  });

  it("shows shares in 万股 / 亿股 and unknown units after the number", () => {
    expect(formatWithUnit(150_000, "万股", "zh")).toBe("15.00亿股");
    expect(formatWithUnit(3.5, "点", "zh")).toBe("3.50 点");
  });

  it("leaves a number without a unit as it is, rounded", () => {
    expect(formatWithUnit(42, undefined, "en")).toBe("42");
    expect(formatWithUnit(3.14159265, undefined, "en")).toBe("3.1416");
    expect(formatWithUnit(1234.5678, undefined, "en")).toBe("1,234.57");
  });
});
