import { useTranslation } from "react-i18next";

import { ApiError } from "@/lib/api-client";

const KNOWN_CODES = new Set([
  "query_rejected",
  "query_failed",
  "query_timeout",
  "result_too_large",
  "memory_limit_exceeded",
  "store_unavailable",
  "invalid_request",
  "network_error",
  "client_timeout",
]);

export function errorTitleKey(code: string): string {
  return KNOWN_CODES.has(code) ? `errors.${code}` : "errors.unknown";
}

export function ErrorNotice({ error }: { error: unknown }) {
  const { t } = useTranslation();
  const code = error instanceof ApiError ? error.code : "unknown";
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="notice notice-error" role="alert" data-error-code={code}>
      <strong>{t(errorTitleKey(code))}</strong>
      <span className="code-tag">{code}</span>
      <p>{message}</p>
    </div>
  );
}
