"""A loopback OpenAI-compatible server: a real HTTP server on 127.0.0.1 that records every request.

Tests script its replies (tool call, text, HTTP error, hang) and then assert what the real
ChatOpenAI client sent: path, model, bearer key, messages, tools or response_format.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    tool_args: dict[str, Any] | None = None  # answer as a call of the tool the client offered
    raw_arguments: str | None = None  # tool-call arguments sent verbatim (e.g. broken JSON)
    content: str | None = None  # answer as message text
    status: int = 200
    hang_s: float = 0.0  # stay silent this long before answering (client timeouts)
    error: dict[str, Any] | None = None  # the error object of a non-200 answer (a server's own words)
    body: str | None = None  # a 200 answer sent verbatim instead of a chat completion (garbage)
    prompt_tokens: int | None = 120
    completion_tokens: int | None = 30


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def text(self) -> str:
        """All message contents joined, for asserting what the prompt carried."""
        return "\n".join(str(message.get("content") or "") for message in self.body.get("messages", []))


@dataclass
class OpenAiStub:
    replies: list[Reply] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> OpenAiStub:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                stub.requests.append(
                    Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                reply = stub.replies.pop(0) if stub.replies else Reply(status=599)
                if reply.hang_s and stub._stop.wait(reply.hang_s):
                    return
                status, payload, headers = stub.answer(self.path, body, reply)
                data = reply.body.encode() if reply.body is not None else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout) before the answer came

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def answer(
        self, path: str, body: dict[str, Any], reply: Reply
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        if path != "/v1/chat/completions":
            return 404, {"error": {"message": f"no route {path}", "type": "invalid_request_error"}}, {}
        if reply.status != 200:
            # retry-after-ms keeps the client's retries fast; the openai client honours it.
            error = reply.error or {"message": f"stub status {reply.status}", "type": "server_error"}
            return reply.status, {"error": error}, {"retry-after-ms": "10"}
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        finish = "stop"
        if reply.tool_args is not None or reply.raw_arguments is not None:
            tool_name = body["tools"][0]["function"]["name"]
            message["tool_calls"] = [
                {
                    "id": f"call_{len(self.requests)}",
                    "type": "function",
                    "function": {
                        "name": tool_name,
                        "arguments": reply.raw_arguments or json.dumps(reply.tool_args, ensure_ascii=False),
                    },
                }
            ]
            finish = "tool_calls"
        payload: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        }
        if reply.prompt_tokens is not None and reply.completion_tokens is not None:
            payload["usage"] = {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            }
        return 200, payload, {}
