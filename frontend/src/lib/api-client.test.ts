import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ApiError, createApiClient } from "@/lib/api-client";

// A loopback HTTP server answering like the Django API does, so the client's real fetch path runs.
interface Seen {
  method?: string;
  headers: IncomingMessage["headers"];
  body: string;
}
const seen: Seen[] = [];

function reply(res: ServerResponse, status: number, body: string, type = "application/json") {
  res.writeHead(status, { "Content-Type": type });
  res.end(body);
}

const routes: Record<string, (req: IncomingMessage, res: ServerResponse, body: string) => void> = {
  "/ok": (_req, res, body) => reply(res, 200, JSON.stringify({ echoed: body ? JSON.parse(body) : null })),
  "/refused": (_req, res) =>
    reply(res, 400, JSON.stringify({ error: { code: "query_rejected", message: "multiple statements" } })),
  "/html-500": (_req, res) => reply(res, 500, "<h1>Server Error</h1>", "text/html"),
  "/not-json": (_req, res) => reply(res, 200, "plain text", "text/plain"),
  "/slow": (_req, res) => {
    setTimeout(() => reply(res, 200, "{}"), 2_000);
  },
};

let server: Server;
let baseUrl = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      seen.push({ method: req.method, headers: req.headers, body });
      const route = routes[req.url ?? ""];
      if (route) route(req, res, body);
      else reply(res, 404, "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function captureError(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error("expected the request to fail");
}

describe("api client", () => {
  it("posts JSON with the CSRF token from the cookie and returns the parsed body", async () => {
    document.cookie = "csrftoken=abc123";
    const client = createApiClient(baseUrl);
    const answer = await client.post<{ echoed: unknown }>("/ok", { sql: "SELECT 1" });
    expect(answer.echoed).toEqual({ sql: "SELECT 1" });
    const request = seen.at(-1);
    expect(request?.method).toBe("POST");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["x-csrftoken"]).toBe("abc123");
  });

  it("turns a JSON error body into an ApiError with its code and message", async () => {
    const error = await captureError(createApiClient(baseUrl).post("/refused", { sql: "SELECT 1; DROP" }));
    expect(error.status).toBe(400);
    expect(error.code).toBe("query_rejected");
    expect(error.message).toBe("multiple statements");
  });

  it("reports a non-JSON error page by its HTTP status", async () => {
    const error = await captureError(createApiClient(baseUrl).get("/html-500"));
    expect(error.code).toBe("http_500");
    expect(error.status).toBe(500);
  });

  it("refuses a successful answer that is not JSON", async () => {
    const error = await captureError(createApiClient(baseUrl).get("/not-json"));
    expect(error.code).toBe("invalid_response");
  });

  it("gives up after its timeout with a client_timeout error", async () => {
    const error = await captureError(createApiClient(baseUrl).get("/slow", { timeoutMs: 200 }));
    expect(error.code).toBe("client_timeout");
  });

  it("reports an unreachable server as a network error", async () => {
    const error = await captureError(createApiClient("http://127.0.0.1:9").get("/ok"));
    expect(error.code).toBe("network_error");
  });
});
