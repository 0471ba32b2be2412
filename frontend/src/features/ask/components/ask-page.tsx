import { useMutation } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { useSearchParams } from "react-router";

import { ErrorNotice } from "@/components/error-notice";
import { StatusBadge } from "@/components/status-badge";
import { cancelJob } from "@/features/ask/api/jobs";
import type { JobFinished } from "@/features/ask/api/pipeline-events";
import { AnswerView } from "@/features/ask/components/answer-view";
import { PipelineTimeline } from "@/features/ask/components/pipeline-timeline";
import { QuestionBox } from "@/features/ask/components/question-box";
import { useAskJob, useJob, useJobResult, useSemanticModel } from "@/features/ask/hooks/use-jobs";
import { useJobStream } from "@/features/ask/hooks/use-job-stream";

export function AskPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const jobId = Number(params.get("job")) || null;
  const ask = useAskJob();
  const cancel = useMutation({ mutationFn: cancelJob });
  const job = useJob(jobId);
  const stream = useJobStream(jobId);
  const model = useSemanticModel();
  const ended = stream.events.find((event): event is JobFinished => event.type === "job_finished");
  const result = useJobResult(jobId, ended?.job_status === "done");

  const onAsk = (question: string) =>
    ask.mutate(question, { onSuccess: (created) => setParams({ job: String(created.id) }) });

  return (
    <section className="panel" aria-labelledby="ask-title">
      <h2 id="ask-title">{t("ask.title")}</h2>
      <QuestionBox busy={ask.isPending || (jobId !== null && !stream.finished && !stream.failure)} onAsk={onAsk} />
      {ask.error && <ErrorNotice error={ask.error} />}
      {jobId !== null && (
        <div className="ask-grid">
          <div className="stack">
            {job.data && (
              <p className="asked" data-testid="asked-question">
                <span className="muted small">{t("ask.asked", { id: jobId })}</span> {job.data.question}
              </p>
            )}
            <PipelineTimeline events={stream.events} live={!stream.finished && !stream.failure} />
            {!stream.finished && !stream.failure && (
              <button type="button" onClick={() => cancel.mutate(jobId)} disabled={cancel.isPending}>
                {t("ask.cancel")}
              </button>
            )}
            {stream.failure && <ErrorNotice error={new Error(t("ask.streamLost", { code: stream.failure }))} />}
            {job.error && <ErrorNotice error={job.error} />}
          </div>
          <div className="stack">
            {ended && ended.job_status !== "done" && <StatusBadge status={ended.job_status} message={ended.message || ended.error_code} />}
            {result.error && <ErrorNotice error={result.error} />}
            {result.data && <AnswerView result={result.data} model={model.data} />}
          </div>
        </div>
      )}
    </section>
  );
}
