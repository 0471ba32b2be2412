import { useMemo } from "react";
import { clickhouse, formatDialect } from "sql-formatter";

// Case is preserved: upper-casing "keywords" would also rename identifiers such as an alias `last`.
export function formatSql(sql: string): string {
  try {
    return formatDialect(sql, { dialect: clickhouse, keywordCase: "preserve", tabWidth: 2 });
  } catch {
    return sql; // show what the server sent rather than nothing
  }
}

export function SqlBlock({ sql, label }: { sql: string; label: string }) {
  const formatted = useMemo(() => formatSql(sql), [sql]);
  return (
    <pre className="sql-block" aria-label={label}>
      <code>{formatted}</code>
    </pre>
  );
}
