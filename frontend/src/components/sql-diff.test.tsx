import { describe, expect, it } from "vitest";

import { diffLines } from "@/components/sql-diff";

describe("diffLines", () => {
  it("marks removed and added lines around the common ones", () => {
    const before = "select ts_code\nfrom daily_basic\nwhere total_mv > 5000000";
    const after = "select ts_code, name\nfrom daily_basic\nwhere total_mv > 10000000";
    expect(diffLines(before, after)).toEqual([
      { kind: "added", text: "select ts_code, name" },
      { kind: "removed", text: "select ts_code" },
      { kind: "same", text: "from daily_basic" },
      { kind: "added", text: "where total_mv > 10000000" },
      { kind: "removed", text: "where total_mv > 5000000" },
    ]);
  });

  it("an unchanged statement has no changes", () => {
    expect(diffLines("a\nb", "a\nb").every((line) => line.kind === "same")).toBe(true);
  });
});
