import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { clickhouse, formatDialect } from "sql-formatter";

// Case is preserved: upper-casing "keywords" would also rename identifiers such as an alias `last`.
export function formatSql(sql: string): string {
  try {
    return formatDialect(sql, { dialect: clickhouse, keywordCase: "preserve", tabWidth: 2 });
  } catch {
    return sql; // show what the server sent rather than nothing
  }
}

export function SqlBlock({ sql, label, copyable = false }: { sql: string; label: string; copyable?: boolean }) {
  const { t } = useTranslation();
  const formatted = useMemo(() => formatSql(sql), [sql]);
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard.writeText(formatted).then(() => setCopied(true));
  };
  return (
    <div className="sql-wrap">
      {copyable && (
        <button type="button" className="copy" onClick={copy} data-testid="copy-sql">
          {copied ? t("common.copied") : t("common.copy")}
        </button>
      )}
      <pre className="sql-block" aria-label={label}>
        <code>{formatted}</code>
      </pre>
    </div>
  );
}
