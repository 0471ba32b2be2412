import { act, renderHook, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { useJobStream } from "@/features/ask/hooks/use-job-stream";

/** A WebSocket the test drives: it records each connection's address and delivers what it is told. */
class FakeSocket {
  static opened: FakeSocket[] = [];
  onmessage: ((message: MessageEvent<string>) => void) | null = null;
  onclose: ((close: CloseEvent) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
  }
  send(seq: number, type = "step_started") {
    const event = { seq, at_ms: seq, type, step: "probe", round: 0 };
    this.onmessage?.({ data: JSON.stringify({ type: "event", event }) } as MessageEvent<string>);
  }
  drop(code: number) {
    this.onclose?.({ code } as CloseEvent);
  }
  close() {
    this.closed = true;
  }
}

afterEach(() => {
  FakeSocket.opened = [];
  vi.unstubAllGlobals();
});

describe("useJobStream", () => {
  it("reconnects after a drop asking only for what it missed, and keeps each event once, in order", async () => {
    vi.stubGlobal("WebSocket", FakeSocket);
    const { result } = renderHook(() => useJobStream(7));
    const first = FakeSocket.opened[0];
    expect(first?.url).toBe("ws://localhost:3000/ws/jobs/7/?after=0");
    act(() => {
      first?.send(1);
      first?.send(2);
      first?.drop(1006);
    });
    await waitFor(() => expect(FakeSocket.opened).toHaveLength(2), { timeout: 2000 });
    const second = FakeSocket.opened[1];
    expect(second?.url).toBe("ws://localhost:3000/ws/jobs/7/?after=2");
    act(() => {
      second?.send(2); // sent again by the server: kept once
      second?.send(3);
      second?.send(4, "job_finished");
    });
    expect(result.current.events.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
    expect(result.current.finished).toBe(true);
    expect(second?.closed).toBe(true);
  });

  it("gives up on a job it may not see", () => {
    vi.stubGlobal("WebSocket", FakeSocket);
    const { result } = renderHook(() => useJobStream(8));
    act(() => FakeSocket.opened[0]?.drop(4404));
    expect(result.current.failure).toBe("4404");
    expect(FakeSocket.opened).toHaveLength(1);
  });
});
