import { useEffect, useState } from "react";

import { mergeEvents, type StreamEvent } from "@/features/ask/api/pipeline-events";
import { websocketUrl } from "@/lib/api-client";

// Close codes of /ws/jobs/<id>/: not signed in, no such job (for this user).
const FINAL_CLOSE_CODES = new Set([4401, 4404]);
const MAX_RETRIES = 5;

export interface JobStream {
  events: StreamEvent[];
  finished: boolean;
  /** The stream was refused or lost for good (close code or "gone"). */
  failure: string | null;
}

interface State extends JobStream {
  jobId: number | null;
}

const EMPTY: State = { jobId: null, events: [], finished: false, failure: null };

/** A job's events over its WebSocket: the stored history first, then live, each once and in order.
 * A dropped connection reconnects asking only for the events after the last one received. */
export function useJobStream(jobId: number | null): JobStream {
  const [state, setState] = useState<State>(EMPTY);

  useEffect(() => {
    if (jobId === null) return;
    let socket: WebSocket | null = null;
    let done = false;
    let retries = 0;
    let lastSeq = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const update = (change: (current: State) => Partial<State>) =>
      setState((current) => {
        const base = current.jobId === jobId ? current : { ...EMPTY, jobId };
        return { ...base, ...change(base) };
      });

    const connect = () => {
      socket = new WebSocket(websocketUrl(`/ws/jobs/${jobId}/?after=${lastSeq}`));
      socket.onmessage = (message: MessageEvent<string>) => {
        const data = JSON.parse(message.data) as { type?: string; event?: StreamEvent };
        const event = data.event;
        if (data.type !== "event" || !event) return;
        lastSeq = Math.max(lastSeq, event.seq);
        retries = 0;
        const finished = event.type === "job_finished";
        update((current) => ({ events: mergeEvents(current.events, [event]), finished: current.finished || finished }));
        if (finished) {
          done = true;
          socket?.close();
        }
      };
      socket.onclose = (close: CloseEvent) => {
        if (done) return;
        if (FINAL_CLOSE_CODES.has(close.code) || retries >= MAX_RETRIES) {
          update(() => ({ failure: FINAL_CLOSE_CODES.has(close.code) ? String(close.code) : "gone" }));
          return;
        }
        retries += 1;
        timer = setTimeout(connect, 300 * retries);
      };
    };
    connect();
    return () => {
      done = true;
      clearTimeout(timer);
      socket?.close();
    };
  }, [jobId]);

  const { events, finished, failure } = state.jobId === jobId ? state : EMPTY;
  return { events, finished, failure };
}
