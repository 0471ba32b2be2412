import { type FormEvent, type KeyboardEvent, useState } from "react";
import { useTranslation } from "react-i18next";

import { ErrorNotice } from "@/components/error-notice";
import { AskAnswer } from "@/features/ask/components/ask-answer";
import { useAsk } from "@/features/ask/hooks/use-ask";

export const EXAMPLE_QUESTIONS = [
  "2025年9月8日收盘价最高的上交所股票",
  "市盈率低于15且净利润连续三年增长",
  "今日收盘价突破60日均线的科技股",
  "统计各行业板块涨幅前三的股票及其平均市值",
  "Top 10 stocks by market cap on the latest trading day",
];

export const MAX_QUESTION_CHARS = 2000;

export function AskPanel() {
  const { t } = useTranslation();
  const [question, setQuestion] = useState("");
  const ask = useAsk();

  const submit = (text: string) => {
    const trimmed = text.trim();
    if (trimmed) ask.mutate(trimmed);
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit(question);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) submit(question);
  };
  const askExample = (example: string) => {
    setQuestion(example);
    submit(example);
  };

  return (
    <section className="panel" aria-labelledby="ask-title">
      <h2 id="ask-title">{t("ask.title")}</h2>
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
        <div className="row">
          <button type="submit" className="primary" disabled={ask.isPending || !question.trim()}>
            {ask.isPending ? t("ask.asking") : t("ask.submit")}
          </button>
          <span className="muted small">{t("ask.hint")}</span>
        </div>
        <div className="row examples">
          <span className="muted small">{t("ask.examples")}:</span>
          {EXAMPLE_QUESTIONS.map((example) => (
            <button key={example} type="button" className="chip" onClick={() => askExample(example)}>
              {example}
            </button>
          ))}
        </div>
      </form>
      {ask.error && <ErrorNotice error={ask.error} />}
      {ask.data && !ask.error && <AskAnswer answer={ask.data} />}
    </section>
  );
}
