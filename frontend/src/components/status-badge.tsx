import { useTranslation } from "react-i18next";

export type Tone = "ok" | "info" | "warn" | "error" | "pending";

const TONES: Record<string, Tone> = {
  verified: "ok",
  corrected: "info",
  unverified: "warn",
  not_understood: "warn",
  queued: "pending",
  running: "pending",
  cancelled: "warn",
};

/** Colour of an answer or job status; anything not named (error, query_failed, …) is an error. */
export function statusTone(status: string): Tone {
  return TONES[status] ?? "error";
}

/** The words a refusal names (`could not map: 'phase', 'moon'`): what the engine did not read. */
export function unreadWords(message: string): string[] {
  return [...message.matchAll(/'([^']+)'/g)].map((match) => match[1] ?? "").filter(Boolean);
}

interface StatusBadgeProps {
  status: string;
  /** unverified: the risk warning; not understood: the refusal naming the words not read. */
  message?: string;
  warnings?: readonly string[];
  correctionRound?: number | null;
}

/** The verdict on an answer, with what the reader must know before using it. */
export function StatusBadge({ status, message = "", warnings = [], correctionRound = null }: StatusBadgeProps) {
  const { t } = useTranslation();
  const tone = statusTone(status);
  const label = t(`status.${status}`, { defaultValue: status });
  const words = status === "not_understood" ? unreadWords(message) : [];
  return (
    <div className={`status status-${tone}`} data-testid="status" data-status={status}>
      <span className={`badge badge-${tone}`} data-testid="status-badge">
        {label}
      </span>
      <span className="status-text">
        {status === "verified" && t("statusNote.verified")}
        {status === "corrected" && t("statusNote.corrected", { round: correctionRound ?? "?" })}
        {status === "unverified" && <strong role="alert">{t("statusNote.unverified")}</strong>}
        {status === "not_understood" && t("statusNote.not_understood")}
        {tone === "error" && message}
      </span>
      {words.length > 0 && (
        <span className="unread" data-testid="unread-words">
          {words.map((word) => (
            <mark key={word}>{word}</mark>
          ))}
        </span>
      )}
      {status === "not_understood" && words.length === 0 && message && <span className="muted">{message}</span>}
      {status === "unverified" && warnings.length > 0 && (
        <ul className="risk" data-testid="risk-warnings">
          {warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
