// The one API client: JSON in, JSON out, every failure turned into an ApiError with a code.
import type { components } from "@/lib/api-types";

/** The API's types, generated from its OpenAPI schema (`npm run gen:schema && npm run gen:api`). */
export type Schemas = components["schemas"];

export const DEFAULT_TIMEOUT_MS = 60_000;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown };
}

function csrfToken(): string | undefined {
  const match = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie);
  return match?.[1] ? decodeURIComponent(match[1]) : undefined;
}

function errorFromBody(status: number, body: unknown, fallback: string): ApiError {
  const detail = (body as ErrorBody | null)?.error;
  if (detail && typeof detail.code === "string" && typeof detail.message === "string") {
    return new ApiError(status, detail.code, detail.message);
  }
  return new ApiError(status, `http_${status}`, fallback);
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

async function request<T>(
  baseUrl: string,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
  { timeoutMs = DEFAULT_TIMEOUT_MS, signal }: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const token = method === "GET" ? undefined : csrfToken();
  if (token) headers["X-CSRFToken"] = token;

  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      signal: combined,
    });
  } catch (error) {
    if (timeout.aborted) {
      throw new ApiError(0, "client_timeout", `no answer from the server within ${timeoutMs / 1000} s`);
    }
    if (signal?.aborted) throw error;
    throw new ApiError(0, "network_error", `cannot reach the server: ${(error as Error).message}`);
  }

  const payload = await readJson(response);
  if (!response.ok) {
    throw errorFromBody(response.status, payload, `${response.status} ${response.statusText}`.trim());
  }
  if (response.status === 204) return undefined as T;
  if (payload === null) {
    throw new ApiError(response.status, "invalid_response", "the server did not answer with JSON");
  }
  return payload as T;
}

/** `baseUrl` is empty in the app (same origin as the page); tests point it at a loopback server. */
export function createApiClient(baseUrl = "") {
  return {
    get: <T>(path: string, options?: RequestOptions) => request<T>(baseUrl, "GET", path, undefined, options),
    post: <T>(path: string, body: unknown, options?: RequestOptions) =>
      request<T>(baseUrl, "POST", path, body, options),
    patch: <T>(path: string, body: unknown, options?: RequestOptions) =>
      request<T>(baseUrl, "PATCH", path, body, options),
    delete: (path: string, options?: RequestOptions) => request<undefined>(baseUrl, "DELETE", path, undefined, options),
  };
}

export const apiClient = createApiClient();

/** A WebSocket address on the page's own host (ws: or wss: like the page). */
export function websocketUrl(path: string, location: Pick<Location, "protocol" | "host"> = window.location): string {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;
}
