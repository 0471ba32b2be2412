import { type FormEvent, type KeyboardEvent, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";

import { complete, vocabulary } from "@/features/ask/components/completion";
import { useSemanticModel } from "@/features/ask/hooks/use-jobs";

export const EXAMPLE_QUESTIONS = [
  "2025年9月8日收盘价最高的上交所股票",
  "统计各行业板块涨幅前三的股票及其平均市值",
  "市盈率低于15且净利润连续三年增长",
  "Top 10 stocks by market cap on the latest trading day",
  "Average PE by industry on the latest trading day",
];

export const MAX_QUESTION_CHARS = 2000;

interface QuestionBoxProps {
  busy: boolean;
  onAsk: (question: string) => void;
}

export function QuestionBox({ busy, onAsk }: QuestionBoxProps) {
  const { t } = useTranslation();
  const [question, setQuestion] = useState("");
  const model = useSemanticModel();
  const words = useMemo(() => (model.data ? vocabulary(model.data) : []), [model.data]);
  const completion = useMemo(() => complete(question, words), [question, words]);

  const submit = (text: string) => {
    const trimmed = text.trim();
    if (trimmed && !busy) onAsk(trimmed);
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit(question);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) submit(question);
  };
  const accept = (word: string) => {
    if (completion) setQuestion(question.slice(0, question.length - completion.fragment.length) + word);
  };

  return (
    <form onSubmit={onSubmit} className="stack">
      <textarea
        className="question-input"
        aria-label={t("ask.title")}
        placeholder={t("ask.placeholder")}
        value={question}
        maxLength={MAX_QUESTION_CHARS}
        rows={2}
        onChange={(event) => setQuestion(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {completion && (
        <div className="row completions" role="group" aria-label={t("ask.completions")}>
          {completion.words.map((word) => (
            <button key={word} type="button" className="chip chip-suggest" onClick={() => accept(word)}>
              {word}
            </button>
          ))}
        </div>
      )}
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !question.trim()}>
          {busy ? t("ask.asking") : t("ask.submit")}
        </button>
        <span className="muted small">{t("ask.hint")}</span>
      </div>
      <div className="row examples">
        <span className="muted small">{t("ask.examples")}:</span>
        {EXAMPLE_QUESTIONS.map((example) => (
          <button
            key={example}
            type="button"
            className="chip"
            disabled={busy}
            onClick={() => {
              setQuestion(example);
              submit(example);
            }}
          >
            {example}
          </button>
        ))}
      </div>
    </form>
  );
}
