"""Any OpenAI-compatible chat-completions server (OpenAI, vLLM `serve`, SGLang, llama.cpp, ...).

Config keys (a dict):

- `model` (required): the model id the server knows.
- `base_url`: a URL (`http://host:8000/v1`) or a list of URLs; each attempt goes to the least-loaded
  URL (fewest requests in flight, ties broken round-robin). A URL that fails on the way (connection,
  timeout, 5xx) rests for a growing cooldown while others are up, and a retry goes to another URL. Required, or `base_url_env`: the name of an
  environment variable holding the URL. There is no default: a forgotten URL must never send the
  questions (and the key) to a hosted API.
- `revision`: a label of the weights behind the server's model id; it only enters the cache key, so
  answers of other weights served under the same id are not reused.
- `api_key_env`: name of the environment variable holding the key (default `OPENAI_API_KEY`); when that
  variable is unset the dummy key `EMPTY` is sent (local servers ignore it).
- `params`: decoding parameters, defaults `temperature=0`, `max_tokens=256`; `logprobs: true` and
  `top_logprobs: k` ask for the first answer token's log-probabilities (kept as `logprobs_json`).
  Every key goes into the JSON body as is, so server-specific ones work too (vLLM's `top_k`).
  A request's own `params` override these.
- `concurrency`: most requests in flight at once over all URLs (default 16; never exceeded).
- `timeout_s`: limit for one attempt, connection to last byte (default 60).
- `max_retries`: retries after the first attempt (default 5), on 408/409/429, 5xx, timeouts,
  dropped or refused connections and 2xx answers whose body is no chat completion (truncated or
  garbled JSON, no choices: `bad_response`); other 4xx fail at once.
- `backoff_base_s` (default 0.5), `backoff_max_s` (default 30): exponential backoff with jitter,
  the n-th retry waits a uniform draw in [d/2, d], d = min(backoff_max_s, base * 2**(n-1)).
  A 429/503 carrying `Retry-After` (or `retry-after-ms`) waits what the server asks, capped at
  `retry_after_max_s` (default 120), plus up to 10 % jitter.

Requests are sent grouped by `table_id` (tables in first-appearance order) so prompts sharing a
table prefix reach the server together. The client's own retries are off: every attempt is counted
here. A request that still fails yields a Prediction with `response=None`, its `error_kind`
(`http_<status>`, `timeout`, `connection`, `bad_response`, `exception`) and `attempts`.
`latency_s` is the duration of the successful attempt (total time spent for a failed request).
"""
from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import os
import random
import sys
import threading
import time
from typing import Any, Callable, Optional

from ..prompting.image_prompts import ImageWire, has_images
from .base import Backend, Prediction, PredictionRequest, register
from .params import group_by_prompt_prefix, resolve_params

log = logging.getLogger(__name__)

_RETRY_STATUS = {408, 409, 429}


class MalformedBody(ValueError):
    """A 2xx answer whose body is not a chat completion (truncated or garbled JSON, no choices)."""


def parse_retry_after(headers: Any, cap_s: float = 120.0) -> Optional[float]:
    """Seconds a response asks the client to wait (`retry-after-ms`, `retry-after` seconds or date)."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return min(cap_s, max(0.0, float(value) / 1000.0))
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return min(cap_s, max(0.0, float(value)))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return min(cap_s, max(0.0, when.timestamp() - time.time()))


def first_token_logprobs(choice: dict[str, Any]) -> Optional[str]:
    """JSON of the first generated token's logprob and its top alternatives, or None."""
    content = (choice.get("logprobs") or {}).get("content")
    if not content:
        return None
    first = content[0]
    top = [{"token": t.get("token"), "logprob": t.get("logprob")} for t in (first.get("top_logprobs") or [])]
    return json.dumps({"token": first.get("token"), "logprob": first.get("logprob"), "top_logprobs": top},
                      ensure_ascii=False)


def _response_type(client: Any) -> type:
    """The HTTP library's Response class the client uses (httpx2 for openai>=3, httpx before)."""
    rt = _RESPONSE_TYPES.get(type(client))
    if rt is None:
        inner = getattr(client, "_client", None)
        module = sys.modules.get(type(inner).__module__.split(".")[0]) if inner is not None else None
        rt = getattr(module, "Response", None)
        if rt is None:
            try:
                import httpx2 as module
            except ImportError:
                import httpx as module
            rt = module.Response
        _RESPONSE_TYPES[type(client)] = rt
    return rt


_RESPONSE_TYPES: dict[type, type] = {}


class _Balancer:
    """Least-loaded choice among URLs, ties broken round-robin, failing URLs set aside.

    A URL whose attempt failed on the way (refused or dropped connection, timeout, 5xx) rests for a
    cooldown that doubles with each failure in a row (0.5 s up to 30 s) and ends with its next success;
    while others are up it gets no attempts. A retry never goes back to the URL that just failed it
    when there is another, so one dead URL among live ones costs a request one attempt at most.
    """

    COOLDOWN_BASE_S = 0.5
    COOLDOWN_MAX_S = 30.0

    def __init__(self, n: int):
        self.in_flight = [0] * n
        self.sent = [0] * n
        self.failures = [0] * n
        self.down_until = [0.0] * n
        self._next = 0

    def acquire(self, avoid: Optional[int] = None) -> int:
        n = len(self.in_flight)
        now = time.monotonic()
        candidates = [i for i in range(n) if i != avoid] or list(range(n))
        up = [i for i in candidates if self.down_until[i] <= now]
        pool = set(up or candidates)
        low = min(self.in_flight[i] for i in pool)
        for k in range(n):
            i = (self._next + k) % n
            if i in pool and self.in_flight[i] == low:
                break
        self._next = (i + 1) % n
        self.in_flight[i] += 1
        self.sent[i] += 1
        return i

    def release(self, i: int, failed_on_the_way: bool = False) -> None:
        self.in_flight[i] -= 1
        if failed_on_the_way:
            self.failures[i] += 1
            rest = min(self.COOLDOWN_MAX_S, self.COOLDOWN_BASE_S * 2 ** (self.failures[i] - 1))
            self.down_until[i] = time.monotonic() + rest
        else:
            self.failures[i] = 0
            self.down_until[i] = 0.0


# Error kinds that say the URL itself is unwell (beside any 5xx).
_URL_FAILURES = frozenset({"connection", "timeout"})

# Entry keys read as numbers: (key, integer only, smallest allowed value).
_NUMERIC_KEYS = (("concurrency", True, 1), ("timeout_s", False, 0), ("max_retries", True, 0),
                 ("backoff_base_s", False, 0), ("backoff_max_s", False, 0), ("retry_after_max_s", False, 0))


def base_urls(config: dict[str, Any]) -> list[str]:
    """The URLs of an entry: `base_url` (one or a list) or the variable named by `base_url_env`."""
    urls = config.get("base_url")
    env = config.get("base_url_env")
    if urls is not None and env is not None:
        raise ValueError("openai backend: give 'base_url' or 'base_url_env', not both")
    if urls is None and env is not None:
        urls = os.environ.get(str(env))
        if not urls:
            raise ValueError(f"openai backend: environment variable {env!r} (base_url_env) is not set")
    if urls is None:
        raise ValueError("openai backend: 'base_url' is required (or 'base_url_env', the name of an environment "
                         "variable holding it); there is no default URL")
    urls = [urls] if isinstance(urls, str) else urls
    if not isinstance(urls, list) or not urls or not all(isinstance(u, str) and u.strip() for u in urls):
        raise ValueError(f"openai backend: 'base_url' must be a URL or a non-empty list of URLs, got {urls!r}")
    return list(urls)


@register("openai")
class OpenAIBackend(Backend):
    """Any OpenAI-compatible chat completions endpoint, over HTTP with the openai client."""

    entry_keys = frozenset({"base_url", "base_url_env", "api_key_env", "revision", "seed"}
                           | {k for k, _, _ in _NUMERIC_KEYS})
    # Where and how requests travel does not change answers; `seed` only draws the backoff jitter.
    answer_keys = frozenset({"revision"})
    # chat messages of any length; first-token logprobs; image content parts (base64 data URLs)
    capabilities = frozenset({"logprobs", "multi_turn", "images"})
    speaks_openai = True

    @classmethod
    def check_entry(cls, config: dict[str, Any]) -> None:
        base_urls(config)
        for key, integer, low in _NUMERIC_KEYS:
            v = config.get(key)
            if v is None:
                continue
            ok = isinstance(v, int) if integer else isinstance(v, (int, float))
            if isinstance(v, bool) or not ok or v < low:
                kind = "an integer" if integer else "a number"
                raise ValueError(f"openai backend: {key!r} must be {kind} >= {low}, got {v!r}")

    def __init__(self, config: dict[str, Any]):
        super().__init__(config)
        self.model = config.get("model")
        if not self.model:
            raise ValueError("openai backend: config key 'model' is required")
        self.check_entry(config)
        self.base_urls: list[str] = base_urls(config)
        key_env = config.get("api_key_env") or "OPENAI_API_KEY"
        self.api_key = os.environ.get(key_env) or "EMPTY"
        self.params = dict(config.get("params") or {})
        self.concurrency = int(config.get("concurrency", 16))
        if self.concurrency < 1:
            raise ValueError("openai backend: 'concurrency' must be at least 1")
        self.timeout_s = float(config.get("timeout_s", 60))
        self.max_retries = int(config.get("max_retries", 5))
        self.backoff_base_s = float(config.get("backoff_base_s", 0.5))
        self.backoff_max_s = float(config.get("backoff_max_s", 30))
        self.retry_after_max_s = float(config.get("retry_after_max_s", 120))
        self._rng = random.Random(config.get("seed"))
        self._images = ImageWire()  # stored PNG references -> data URLs, each file read and checked once
        # Filled by run(): what was sent where, for reports and tests.
        self.stats: dict[str, Any] = {}

    # ------------------------------------------------------------------ public
    def run(self, requests: list[PredictionRequest], on_result: Callable[[Prediction], None]) -> None:
        if not requests:
            return
        ordered = group_by_prompt_prefix(requests)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self._run_async(ordered, on_result))
            return
        # Called from inside a running event loop (a notebook): use a loop of our own in a thread.
        errors: list[BaseException] = []

        def target() -> None:
            try:
                asyncio.run(self._run_async(ordered, on_result))
            except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
                errors.append(e)

        t = threading.Thread(target=target, name="openai-backend", daemon=True)
        t.start()
        t.join()
        if errors:
            raise errors[0]

    # ---------------------------------------------------------------- internal
    def _body(self, req: PredictionRequest, params: dict[str, Any]) -> dict[str, Any]:
        """JSON body of the request: model, messages, then every decoding parameter that is not None."""
        messages = self._images.messages(req.messages) if has_images(req.messages) else list(req.messages)
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        body.update((k, v) for k, v in params.items() if v is not None)
        return body

    def _backoff(self, retry_number: int, retry_after: Optional[float]) -> float:
        if retry_after is not None:
            return retry_after * (1.0 + 0.1 * self._rng.random())
        d = min(self.backoff_max_s, self.backoff_base_s * (2 ** (retry_number - 1)))
        return self._rng.uniform(d / 2, d)

    def _classify(self, exc: BaseException) -> tuple[str, bool, Optional[float]]:
        """(error_kind, retryable, retry_after_s) of a failed attempt."""
        import openai

        if isinstance(exc, (asyncio.TimeoutError, TimeoutError, openai.APITimeoutError)):
            return "timeout", True, None
        if isinstance(exc, openai.APIStatusError):
            code = exc.status_code
            retry_after = parse_retry_after(getattr(exc.response, "headers", None), self.retry_after_max_s)
            return f"http_{code}", code in _RETRY_STATUS or code >= 500, retry_after
        if isinstance(exc, openai.APIConnectionError):
            return "connection", True, None
        if isinstance(exc, MalformedBody):  # cut short or garbled on the way: sent again like a dropped connection
            return "bad_response", True, None
        if isinstance(exc, (openai.APIResponseValidationError, ValueError, KeyError, IndexError, AttributeError)):
            return "bad_response", False, None
        return "exception", False, None

    async def _attempt(self, client: Any, req: PredictionRequest, body: dict[str, Any]) -> dict[str, Any]:
        """One POST of `/chat/completions`; the parsed JSON body of a 2xx answer.

        Uses the client's documented raw `post` (auth, base URL, status errors as exceptions, retries
        off) with a plain JSON body and reads the JSON itself: the typed `chat.completions.create`
        path costs about 40 % more CPU per request, which bounds throughput on small machines.
        """
        async with asyncio.timeout(self.timeout_s):
            raw = await client.post("/chat/completions", cast_to=_response_type(client), body=body)
            data = await raw.aread()
        try:
            obj = json.loads(data)
        except ValueError as exc:
            raise MalformedBody(f"the body of a {raw.status_code} is not JSON ({exc}): {data[:200]!r}") from None
        if not isinstance(obj, dict) or not obj.get("choices"):
            raise MalformedBody(f"no choices in response: {str(obj)[:200]}")
        return obj

    def _to_prediction(self, req: PredictionRequest, obj: dict[str, Any], attempts: int, latency: float,
                       want_logprobs: bool) -> Prediction:
        choice = obj["choices"][0]
        usage = obj.get("usage") or {}
        return Prediction(
            cache_key=req.cache_key,
            question_id=req.question_id,
            model_name=req.model_name,
            response=(choice.get("message") or {}).get("content") or "",
            error_kind=None,
            attempts=attempts,
            latency_s=latency,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            logprobs_json=first_token_logprobs(choice) if want_logprobs else None,
        )

    async def _one(self, req: PredictionRequest, clients: list[Any], balancer: _Balancer) -> Prediction:
        from ..running.interrupt import stopping

        params = resolve_params(self.params, req.params)
        body = self._body(req, params)
        want_logprobs = bool(params.get("logprobs"))
        t0 = time.perf_counter()
        attempts = 0
        last_failed: Optional[int] = None
        while True:
            attempts += 1
            self.stats["attempts"] += 1
            i = balancer.acquire(avoid=last_failed)
            self._in_flight += 1
            self.stats["max_in_flight"] = max(self.stats["max_in_flight"], self._in_flight)
            t_attempt = time.perf_counter()
            try:
                resp = await self._attempt(clients[i], req, body)
                pred = self._to_prediction(req, resp, attempts, time.perf_counter() - t_attempt, want_logprobs)
            except asyncio.CancelledError:
                self._in_flight -= 1
                balancer.release(i)
                raise
            except Exception as exc:  # noqa: BLE001 - classified below
                kind, retryable, retry_after = self._classify(exc)
                if kind in ("exception", "bad_response"):
                    log.warning("openai backend: %s on %s: %r", kind, req.question_id, exc)
                last_failed = i
                self._in_flight -= 1
                # A 429 is the server pacing us, not the URL failing: it keeps its place.
                balancer.release(i, failed_on_the_way=kind in _URL_FAILURES or kind.startswith("http_5"))
            else:
                self._in_flight -= 1
                balancer.release(i)
                return pred
            self.stats["errors_by_kind"][kind] = self.stats["errors_by_kind"].get(kind, 0) + 1
            if not retryable or attempts > self.max_retries or stopping():  # no retry after a stop
                return Prediction(
                    cache_key=req.cache_key, question_id=req.question_id, model_name=req.model_name,
                    response=None, error_kind=kind, attempts=attempts, latency_s=time.perf_counter() - t0,
                )
            await asyncio.sleep(self._backoff(attempts, retry_after))

    async def _run_async(self, ordered: list[PredictionRequest], on_result: Callable[[Prediction], None]) -> None:
        import openai

        from ..running.interrupt import stopping

        clients = [
            openai.AsyncOpenAI(base_url=u, api_key=self.api_key, max_retries=0, timeout=self.timeout_s)
            for u in self.base_urls
        ]
        balancer = _Balancer(len(clients))
        self._in_flight = 0
        self.stats = {"attempts": 0, "max_in_flight": 0, "errors_by_kind": {}, "sent_by_url": {}}
        it = iter(ordered)

        async def worker() -> None:
            # The shared iterator hands requests out in order; `concurrency` workers bound what is in flight.
            for req in it:
                if stopping():  # SIGINT / SIGTERM: nothing new is sent (evaluation_py.running.interrupt)
                    return
                on_result(await self._one(req, clients, balancer))

        try:
            await asyncio.gather(*(worker() for _ in range(min(self.concurrency, len(ordered)))))
        finally:
            self.stats["sent_by_url"] = {str(u): n for u, n in zip(self.base_urls, balancer.sent)}
            for c in clients:
                try:
                    await c.close()
                except Exception:  # noqa: BLE001 - closing is best effort
                    pass
