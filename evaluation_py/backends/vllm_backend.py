"""In-process vLLM: one `LLM.chat` call over all prompts, so vLLM schedules the whole set itself.

Config: `model` (a local path, required), `tensor_parallel_size` (1), `max_model_len` (None: the
model's), `gpu_memory_utilization` (0.9), `enable_prefix_caching` (true), `params` (as the openai
backend: temperature 0, max_tokens 256, `logprobs`/`top_logprobs`), optional `seed`, `dtype`,
`trust_remote_code`, `revision` (of the weights, passed to vLLM), `limit_mm_per_prompt` (vLLM's, e.g.
`{image: 1}`). A request on the table's image (`formats: [image]`) sends it as an image_url part with a
base64 data URL of the stored PNG (checked against its sha256), which LLM.chat reads for a vision model. Prompts are passed grouped by `table_id` (shared table prefixes adjacent).
`latency_s` is the wall time of the whole call divided by the number of prompts.
Needs the optional dependency: `pip install -e '.[vllm]'`.
"""
from __future__ import annotations

import json
import time
from typing import Any, Callable

from ..prompting.image_prompts import ImageWire, has_images
from .base import Backend, Prediction, PredictionRequest, register
from .params import group_by_prompt_prefix, resolve_params

INSTALL_HINT = "the vllm backend needs vLLM: pip install -e '.[vllm]'"


def _import_vllm() -> Any:
    try:
        import vllm
    except ImportError as e:
        raise ImportError(f"{INSTALL_HINT} (import failed: {e})") from e
    return vllm


def _sampling_params(vllm: Any, params: dict[str, Any], seed: Any) -> Any:
    p = dict(params)
    logprobs = p.pop("logprobs", None)
    top = p.pop("top_logprobs", None)
    kwargs: dict[str, Any] = {"temperature": p.pop("temperature"), "max_tokens": p.pop("max_tokens")}
    if logprobs:
        kwargs["logprobs"] = int(top or 1)
    if seed is not None and "seed" not in p:
        kwargs["seed"] = seed
    kwargs.update(p)  # top_p, stop, seed, ... under their vLLM names
    return vllm.SamplingParams(**kwargs)


def _first_token_logprobs(completion: Any) -> str | None:
    steps = getattr(completion, "logprobs", None)
    if not steps:
        return None
    first_id = completion.token_ids[0]
    ranked = sorted(steps[0].items(), key=lambda kv: -kv[1].logprob)
    chosen = steps[0].get(first_id)
    return json.dumps({
        "token": chosen.decoded_token if chosen is not None else None,
        "logprob": chosen.logprob if chosen is not None else None,
        "top_logprobs": [{"token": lp.decoded_token, "logprob": lp.logprob} for _, lp in ranked],
    }, ensure_ascii=False)


@register("vllm")
class VLLMBackend(Backend):
    """A model run in-process by the vLLM engine (offline batched generation)."""

    entry_keys = frozenset({"tensor_parallel_size", "max_model_len", "gpu_memory_utilization", "enable_prefix_caching",
                            "seed", "dtype", "trust_remote_code", "revision", "limit_mm_per_prompt"})
    # Memory and scheduling settings do not change answers; these do (numerics, sampling, weights).
    answer_keys = frozenset({"max_model_len", "seed", "dtype", "trust_remote_code", "revision"})
    # Images go in as OpenAI-style image_url parts (base64 data URLs), which LLM.chat reads for a
    # multimodal model (vLLM "Multimodal Inputs"; a text-only model rejects them with vLLM's own error).
    capabilities = frozenset({"logprobs", "multi_turn", "images"})
    speaks_openai = True

    def __init__(self, config: dict[str, Any]):
        super().__init__(config)
        if not config.get("model"):
            raise ValueError("vllm backend: config key 'model' (a local path) is required")
        self._vllm = _import_vllm()
        self._llm = None

    def _engine(self) -> Any:
        if self._llm is None:
            c = self.config
            kwargs: dict[str, Any] = {
                "model": c["model"],
                "tensor_parallel_size": int(c.get("tensor_parallel_size", 1)),
                "gpu_memory_utilization": float(c.get("gpu_memory_utilization", 0.9)),
                "enable_prefix_caching": bool(c.get("enable_prefix_caching", True)),
            }
            for k in ("max_model_len", "seed", "dtype", "trust_remote_code", "revision", "limit_mm_per_prompt"):
                if c.get(k) is not None:
                    kwargs[k] = c[k]
            self._llm = self._vllm.LLM(**kwargs)
        return self._llm

    def run(self, requests: list[PredictionRequest], on_result: Callable[[Prediction], None]) -> None:
        if not requests:
            return
        ordered = group_by_prompt_prefix(requests)
        all_params = [resolve_params(self.config.get("params"), r.params) for r in ordered]
        seed = self.config.get("seed")
        distinct = {json.dumps(p, sort_keys=True) for p in all_params}
        if len(distinct) == 1:
            sampling: Any = _sampling_params(self._vllm, all_params[0], seed)
        else:
            sampling = [_sampling_params(self._vllm, p, seed) for p in all_params]
        llm = self._engine()
        t0 = time.perf_counter()
        wire = ImageWire()
        conversations = [wire.messages(r.messages) if has_images(r.messages) else list(r.messages) for r in ordered]
        outputs = llm.chat(conversations, sampling, use_tqdm=True)
        per_request = (time.perf_counter() - t0) / len(ordered)
        for r, p, out in zip(ordered, all_params, outputs):
            c = out.outputs[0]
            on_result(Prediction(
                cache_key=r.cache_key, question_id=r.question_id, model_name=r.model_name,
                response=c.text, error_kind=None, attempts=1, latency_s=per_request,
                prompt_tokens=len(out.prompt_token_ids) if out.prompt_token_ids is not None else None,
                completion_tokens=len(c.token_ids),
                logprobs_json=_first_token_logprobs(c) if p.get("logprobs") else None,
            ))

    def close(self) -> None:
        self._llm = None
