import { useMemo } from "react";

import { formatSql } from "@/components/sql-block";

export interface DiffLine {
  kind: "same" | "added" | "removed";
  text: string;
}

/** Line diff (longest common subsequence) of two formatted statements. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split("\n");
  const b = after.split("\n");
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      const row = lcs[i] ?? [];
      row[j] = a[i] === b[j] ? (lcs[i + 1]?.[j + 1] ?? 0) + 1 : Math.max(lcs[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ kind: "same", text: a[i] ?? "" });
      i += 1;
      j += 1;
    } else if (j < b.length && (i >= a.length || (lcs[i]?.[j + 1] ?? 0) >= (lcs[i + 1]?.[j] ?? 0))) {
      lines.push({ kind: "added", text: b[j] ?? "" });
      j += 1;
    } else {
      lines.push({ kind: "removed", text: a[i] ?? "" });
      i += 1;
    }
  }
  return lines;
}

const SIGN: Record<DiffLine["kind"], string> = { same: " ", added: "+", removed: "-" };

export function SqlDiff({ before, after, label }: { before: string; after: string; label: string }) {
  const lines = useMemo(() => diffLines(formatSql(before), formatSql(after)), [before, after]);
  return (
    <pre className="sql-block sql-diff" aria-label={label}>
      <code>
        {lines.map((line, index) => (
          <span key={index} className={`diff-${line.kind}`}>
            {SIGN[line.kind]} {line.text}
            {"\n"}
          </span>
        ))}
      </code>
    </pre>
  );
}
