"""A small OpenAI-compatible chat-completions server for tests and benchmarks (standard library only).

It answers `POST /v1/chat/completions` (also `/chat/completions`) deterministically: the answer to a
request is `responses[last user message]` when that mapping has it, else `"ECHO: " + last user message`.
Image content parts (`image_url` with a base64 data URL) are decoded and kept in `images` (a malformed
one is answered 400). It returns `usage` (whitespace token counts) and, when asked (`logprobs: true`, `top_logprobs: k`),
per-token logprobs; `first_token_top={key: [(token, logprob), ...]}` scripts the first token's top
alternatives (best first, the first is the token chosen) for a key, as a real model's would be. `GET /v1/models` and `GET /health` answer too.

Requests are identified by their last user message (the "key"). The server counts requests, requests in
flight (and the most observed at once), attempts per key, and keeps an event log.

Faults are injected by schedule, per attempt of a key (attempt numbers start at 1):

- `script={key: [fault_for_attempt_1, fault_for_attempt_2, ...]}` (None = answer normally), then
- `fault_rates={"429": 0.1, "500": 0.05, ...}` drawn deterministically from (seed, key, attempt), only
  for attempts up to `max_faulty_attempts` (so a client with enough retries always succeeds).

Fault kinds: `"429"` (with `Retry-After: <retry_after>` and `retry-after-ms` when `retry_after_ms` is set),
`"500"`, `"503"`, `"400"`, any other 3-digit status, `"slow"` (sleeps `slow_s` before answering, past a
client's timeout), `"drop"` (closes the socket without a response) and `"truncated"` (a complete 200
whose body is the first half of the completion's JSON, its Content-Length matching what is sent).

Use from Python::

    with FakeOpenAIServer(latency_s=0.05, fault_rates={"429": 0.1}) as srv:
        client = OpenAI(base_url=srv.base_url, api_key="x")
        ...
        srv.stats()  # {"requests": .., "max_in_flight": .., ...}

or from a shell (prints `READY <base_url>` once listening, serves until SIGINT/SIGTERM)::

    python -m evaluation_py.testing.fake_openai_server --port 8000 --latency-ms 50 \
        --fault 429=0.05 --fault drop=0.01 --responses answers.json
"""
from __future__ import annotations

import argparse
import hashlib
import json
import signal
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional

FAULT_KINDS = ("429", "500", "503", "400", "slow", "drop", "truncated")


def last_user_message(messages: list[dict]) -> str:
    for m in reversed(messages or []):
        if m.get("role") == "user":
            content = m.get("content")
            if isinstance(content, list):  # content parts
                return "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


def image_parts(messages: list[dict]) -> list[bytes]:
    """The bytes of every `image_url` content part (base64 data URLs, as vision servers accept them);
    ValueError for a part that is not one."""
    import base64
    import binascii

    out = []
    for m in messages or []:
        content = m.get("content")
        for p in content if isinstance(content, list) else []:
            if not isinstance(p, dict) or p.get("type") != "image_url":
                continue
            url = str((p.get("image_url") or {}).get("url") or "")
            head, sep, payload = url.partition(",")
            if not sep or not head.startswith("data:image/") or not head.endswith(";base64"):
                raise ValueError(f"image_url is not a base64 data URL: {url[:40]!r}")
            try:
                out.append(base64.b64decode(payload, validate=True))
            except binascii.Error as e:
                raise ValueError(f"image_url has bad base64: {e}") from None
    return out


def default_answer(key: str) -> str:
    return "ECHO: " + key


def _unit(seed: int, key: str, attempt: int, kind: str) -> float:
    h = hashlib.sha256(f"{seed}\x00{key}\x00{attempt}\x00{kind}".encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256


class FakeOpenAIServer:
    """Start with `start()` or as a context manager; `base_url` ends in `/v1`."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency_s: float = 0.0,
        responses: Optional[dict[str, str]] = None,
        script: Optional[dict[str, list[Optional[str]]]] = None,
        fault_rates: Optional[dict[str, float]] = None,
        max_faulty_attempts: int = 2,
        seed: int = 0,
        retry_after: str = "1",
        retry_after_ms: Optional[int] = None,
        slow_s: float = 2.0,
        model: str = "fake-model",
        first_token_top: Optional[dict[str, list[tuple[str, float]]]] = None,
    ):
        self.host = host
        self.port = port
        self.latency_s = latency_s
        self.responses = dict(responses or {})
        self.script = {k: list(v) for k, v in (script or {}).items()}
        self.fault_rates = dict(fault_rates or {})
        self.max_faulty_attempts = max_faulty_attempts
        self.seed = seed
        self.retry_after = retry_after
        self.retry_after_ms = retry_after_ms
        self.slow_s = slow_s
        self.model = model
        self.first_token_top = {k: [(str(t), float(lp)) for t, lp in v] for k, v in (first_token_top or {}).items()}
        self._lock = threading.Lock()
        self._httpd: Optional[_Server] = None
        self._thread: Optional[threading.Thread] = None
        self.reset_counters()

    # ------------------------------------------------------------ counters
    def reset_counters(self) -> None:
        with self._lock:
            self.requests = 0
            self.in_flight = 0
            self.max_in_flight = 0
            self.attempts: dict[str, int] = {}
            self.answered: dict[str, int] = {}  # key -> successful answers sent
            self.faults: dict[str, int] = {}
            self.events: list[tuple[float, str, int, str]] = []  # (time, key, attempt, outcome)
            self.authorizations: set[str] = set()  # Authorization headers seen
            self.images: list[tuple[str, bytes]] = []  # (key, decoded bytes) of each image part received

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {
                "requests": self.requests,
                "in_flight": self.in_flight,
                "max_in_flight": self.max_in_flight,
                "keys": len(self.attempts),
                "answered": sum(self.answered.values()),
                "faults": dict(self.faults),
            }

    def attempt_times(self, key: str) -> list[float]:
        with self._lock:
            return [t for t, k, _, _ in self.events if k == key]

    # ------------------------------------------------------------ schedule
    def fault_for(self, key: str, attempt: int) -> Optional[str]:
        plan = self.script.get(key)
        if plan is not None and attempt <= len(plan):
            return plan[attempt - 1]
        if attempt > self.max_faulty_attempts:
            return None
        # One uniform draw per (key, attempt); kinds take consecutive slices of [0, 1).
        u = _unit(self.seed, key, attempt, "fault")
        edge = 0.0
        for kind in sorted(self.fault_rates):
            edge += self.fault_rates[kind]
            if u < edge:
                return kind
        return None

    # ------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> "FakeOpenAIServer":
        handler = type("_BoundHandler", (_Handler,), {"fake": self})
        self._httpd = _Server((self.host, self.port), handler)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"fake-openai-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "FakeOpenAIServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ------------------------------------------------------------ answering
    def completion(self, body: dict, key: str) -> dict:
        answer = self.responses.get(key, default_answer(key))
        tokens = answer.split() or [""]
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": answer},
            "finish_reason": "stop",
            "logprobs": None,
        }
        if body.get("logprobs"):
            k = int(body.get("top_logprobs") or 0)
            content = []
            for i, tok in enumerate(tokens):
                lp = -0.01 * (i + 1)
                top = [{"token": tok, "logprob": lp, "bytes": list(tok.encode())}]
                top += [{"token": f"{tok}~{j}", "logprob": lp - j, "bytes": None} for j in range(1, k)]
                content.append({"token": tok, "logprob": lp, "bytes": list(tok.encode()), "top_logprobs": top[:k]})
            scripted = self.first_token_top.get(key)
            if scripted and content:
                top = [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in scripted]
                content[0] = {**top[0], "top_logprobs": top[:k]}
            choice["logprobs"] = {"content": content}
        return {
            "id": "chatcmpl-" + hashlib.sha1(key.encode()).hexdigest()[:16],
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [choice],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(answer.split()),
                      "total_tokens": prompt_tokens + len(answer.split())},
        }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers
    fake: FakeOpenAIServer  # set on the bound subclass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence the access log
        pass

    def setup(self) -> None:
        super().setup()
        # Real servers disable Nagle; without it small writes wait for delayed ACKs (~40 ms).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _send_json(self, status: int, obj: Any, headers: Optional[dict[str, str]] = None, cut: bool = False) -> None:
        data = json.dumps(obj).encode()
        if cut:
            data = data[: len(data) // 2]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        # Headers and body in one write (end_headers would flush the headers alone).
        self._headers_buffer.append(b"\r\n")
        self.wfile.write(b"".join(self._headers_buffer) + data)
        self._headers_buffer = []
        self.wfile.flush()

    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self._send_json(200, {"object": "list", "data": [{"id": self.fake.model, "object": "model"}]})
        elif self.path.rstrip("/") == "/health":
            self._send_json(200, {"status": "ok"})
        else:
            self._send_json(404, {"error": {"message": "not found", "type": "not_found"}})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if len(raw) < length:  # the client went away mid-request (killed): nothing to answer or count
            self.close_connection = True
            return
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send_json(404, {"error": {"message": "not found", "type": "not_found"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_json(400, {"error": {"message": "invalid JSON", "type": "invalid_request_error"}})
            return
        fake = self.fake
        key = last_user_message(body.get("messages") or [])
        try:
            images = image_parts(body.get("messages") or [])
        except ValueError as e:  # as a vision server would: a malformed image is the client's error
            self._send_json(400, {"error": {"message": str(e), "type": "invalid_request_error"}})
            return
        with fake._lock:
            fake.images.extend((key, data) for data in images)
            fake.requests += 1
            fake.authorizations.add(self.headers.get("Authorization", ""))
            attempt = fake.attempts.get(key, 0) + 1
            fake.attempts[key] = attempt
            fake.in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
            fault = fake.fault_for(key, attempt)
            fake.events.append((time.monotonic(), key, attempt, fault or "ok"))
            if fault:
                fake.faults[fault] = fake.faults.get(fault, 0) + 1
        try:
            self._answer(fake, body, key, fault)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (e.g. after its timeout)
        finally:
            with fake._lock:
                fake.in_flight -= 1

    def _answer(self, fake: FakeOpenAIServer, body: dict, key: str, fault: Optional[str]) -> None:
        if fake.latency_s > 0:
            time.sleep(fake.latency_s)
        if fault == "drop":
            self.close_connection = True
            try:
                # RST instead of FIN so the client sees the connection drop at once.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if fault == "slow":
            time.sleep(fake.slow_s)
            fault = None
        if fault == "truncated":
            self._send_json(200, fake.completion(body, key), cut=True)
            return
        if fault:
            status = int(fault)
            headers = {}
            if status == 429:
                headers["Retry-After"] = fake.retry_after
                if fake.retry_after_ms is not None:
                    headers["retry-after-ms"] = str(fake.retry_after_ms)
            kind = {429: "rate_limit_exceeded", 400: "invalid_request_error"}.get(status, "server_error")
            self._send_json(status, {"error": {"message": f"injected {status}", "type": kind, "code": None}}, headers)
            return
        self._send_json(200, fake.completion(body, key))
        with fake._lock:
            fake.answered[key] = fake.answered.get(key, 0) + 1


def _parse_fault(text: str) -> tuple[str, float]:
    kind, _, rate = text.partition("=")
    if not rate:
        raise argparse.ArgumentTypeError(f"--fault wants KIND=RATE, got {text!r}")
    return kind, float(rate)


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(description="Fake OpenAI-compatible chat-completions server (for tests).")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000, help="0 picks a free port (printed on the READY line)")
    p.add_argument("--latency-ms", type=float, default=0.0)
    p.add_argument("--responses", help="JSON file: object mapping last user message -> answer")
    p.add_argument("--fault", action="append", type=_parse_fault, default=[],
                   help=f"KIND=RATE, KIND in {FAULT_KINDS} or an HTTP status; repeatable")
    p.add_argument("--max-faulty-attempts", type=int, default=2)
    p.add_argument("--retry-after", default="1")
    p.add_argument("--slow-s", type=float, default=2.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--model", default="fake-model")
    args = p.parse_args(argv)
    responses = None
    if args.responses:
        with open(args.responses, encoding="utf-8") as f:
            responses = json.load(f)
    srv = FakeOpenAIServer(
        host=args.host, port=args.port, latency_s=args.latency_ms / 1000.0, responses=responses,
        fault_rates=dict(args.fault), max_faulty_attempts=args.max_faulty_attempts, seed=args.seed,
        retry_after=args.retry_after, slow_s=args.slow_s, model=args.model,
    ).start()
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    print(f"READY {srv.base_url}", flush=True)
    try:
        while not stop.wait(0.2):
            pass
    finally:
        srv.stop()
        print(json.dumps(srv.stats()), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
