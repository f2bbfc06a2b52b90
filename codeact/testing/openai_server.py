"""A small OpenAI-compatible HTTP server on 127.0.0.1 that replays scripted replies.

It speaks the real wire format — JSON for ``stream: false``, Server-Sent Events with
``chat.completion.chunk`` objects and ``data: [DONE]`` for ``stream: true``, tool-call deltas
with indexes — so client code is tested over real HTTP. Replies are the same specs
``ScriptedLLM`` takes, plus ``HTTPFailure(status)`` and ``Malformed()``.
"""

from __future__ import annotations

import json
import math
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from codeact.llms.testing import Reply, ReplySpec, to_reply


@dataclass
class HTTPFailure:
    """Answer with this HTTP status (e.g. 429 or 503) and an OpenAI-style error body."""

    status: int
    message: str = "scripted failure"
    retry_after: float | None = 0


@dataclass
class Malformed:
    """Start a stream, then send a chunk that is not JSON."""


ServerReply = ReplySpec | HTTPFailure | Malformed


@dataclass
class FakeOpenAIServer:
    """Serves ``replies`` in order on ``http://127.0.0.1:<port>/v1``; records ``requests``."""

    replies: list[ServerReply]
    model: str = "fake-model"
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The ``/v1`` URL to give an OpenAI client."""
        assert self._httpd is not None, "start() the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> FakeOpenAIServer:
        """Listen on a free loopback port in a background thread."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(body)
                    reply = (
                        server.replies.pop(0)
                        if server.replies
                        else HTTPFailure(500, "no more replies")
                    )
                server._answer(self, body, reply)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- answering ---------------------------------------------------------------------------
    def _answer(self, h: BaseHTTPRequestHandler, body: dict[str, Any], reply: ServerReply) -> None:
        if isinstance(reply, HTTPFailure):
            payload = json.dumps({"error": {"message": reply.message, "type": "scripted"}}).encode()
            h.send_response(reply.status)
            h.send_header("content-type", "application/json")
            h.send_header("content-length", str(len(payload)))
            if reply.retry_after is not None:
                h.send_header("retry-after", str(reply.retry_after))
            h.end_headers()
            h.wfile.write(payload)
            return
        if isinstance(reply, Malformed):
            self._sse(h, [self._chunk({"role": "assistant", "content": "partial"})], malformed=True)
            return
        spec = to_reply(reply)
        if spec.delay:
            time.sleep(spec.delay)
        if body.get("stream"):
            self._sse(h, self._chunks(spec))
        else:
            completion = self._completion(
                spec, bool(body.get("logprobs")), int(body.get("top_logprobs") or 0)
            )
            payload = json.dumps(completion).encode()
            h.send_response(200)
            h.send_header("content-type", "application/json")
            h.send_header("content-length", str(len(payload)))
            h.end_headers()
            h.wfile.write(payload)

    def _sse(
        self, h: BaseHTTPRequestHandler, chunks: list[dict[str, Any]], malformed: bool = False
    ) -> None:
        h.send_response(200)
        h.send_header("content-type", "text/event-stream")
        h.send_header("connection", "close")
        h.end_headers()
        for chunk in chunks:
            h.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            h.wfile.flush()
        if malformed:
            h.wfile.write(b"data: {not json\n\n")
        h.wfile.write(b"data: [DONE]\n\n")
        h.wfile.flush()
        h.close_connection = True

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def _chunks(self, spec: Reply) -> list[dict[str, Any]]:
        out = [self._chunk({"role": "assistant", "content": ""})]
        if spec.thinking:
            out.append(self._chunk({"reasoning_content": spec.thinking}))
        pieces = spec.chunks if spec.chunks is not None else ([spec.text] if spec.text else [])
        for piece in pieces:
            out.append(self._chunk({"content": piece}))
        for index, call in enumerate(spec.tool_calls):
            args = json.dumps(call.arguments)
            half = len(args) // 2
            out.append(
                self._chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": call.id,
                                "type": "function",
                                "function": {"name": call.name, "arguments": args[:half]},
                            }
                        ]
                    }
                )
            )
            out.append(
                self._chunk(
                    {"tool_calls": [{"index": index, "function": {"arguments": args[half:]}}]}
                )
            )
        out.append(self._chunk({}, "tool_calls" if spec.tool_calls else "stop"))
        return out

    def _completion(
        self, spec: Reply, logprobs: bool = False, top_logprobs: int = 0
    ) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": spec.text or None}
        if spec.tool_calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                }
                for c in spec.tool_calls
            ]
        choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": "stop"}
        if logprobs and spec.token_probabilities:  # (one token: the likeliest)
            tops = [
                {
                    "token": t,
                    "logprob": math.log(p) if p > 0 else -9999.0,
                    "bytes": list(t.encode()),
                }
                for t, p in sorted(spec.token_probabilities.items(), key=lambda tp: -tp[1])
            ][: max(1, top_logprobs)]
            message["content"] = tops[0]["token"]
            choice["logprobs"] = {"content": [{**tops[0], "top_logprobs": tops}]}
            choice["finish_reason"] = "length"  # (as for max_tokens=1)
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [choice],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
