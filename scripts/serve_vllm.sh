#!/usr/bin/env bash
# Serve a local model with vLLM's OpenAI-compatible server, for the `openai` backend.
#
# Usage:
#   scripts/serve_vllm.sh MODEL_PATH [extra `vllm serve` arguments...]
#
# Settings (environment variables, defaults in brackets) match the in-process `vllm` backend:
#   PORT                     [8000]  the server listens on http://$HOST:$PORT/v1
#   HOST                     [127.0.0.1]
#   SERVED_MODEL_NAME        [basename of MODEL_PATH]  the `model` to put in the openai backend config
#   TENSOR_PARALLEL_SIZE     [1]     GPUs per model replica
#   MAX_MODEL_LEN            [unset: the model's own]  context length
#   GPU_MEMORY_UTILIZATION   [0.9]
#   ENABLE_PREFIX_CACHING    [1]     1: --enable-prefix-caching, 0: --no-enable-prefix-caching
#   MAX_NUM_SEQS             [unset: vLLM's default]  most sequences batched at once
#
# Then point the openai backend at it, e.g. (one entry per server when several run):
#   backend: openai
#   config: {base_url: "http://127.0.0.1:8000/v1", model: "<SERVED_MODEL_NAME>", concurrency: 64}
# No key is needed (the backend sends `EMPTY` when OPENAI_API_KEY is unset); set VLLM_API_KEY to demand one.
# Needs vLLM installed: pip install -e '.[vllm]'.
set -euo pipefail

if [[ $# -lt 1 || "$1" == "-h" || "$1" == "--help" ]]; then
    sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
MODEL_PATH="$1"
shift
if [[ ! -e "$MODEL_PATH" ]]; then
    echo "serve_vllm.sh: model path '$MODEL_PATH' does not exist" >&2
    exit 2
fi
if ! command -v vllm >/dev/null 2>&1; then
    echo "serve_vllm.sh: 'vllm' not found; install it with: pip install -e '.[vllm]'" >&2
    exit 2
fi

args=(serve "$MODEL_PATH"
    --host "${HOST:-127.0.0.1}"
    --port "${PORT:-8000}"
    --served-model-name "${SERVED_MODEL_NAME:-$(basename "$MODEL_PATH")}"
    --tensor-parallel-size "${TENSOR_PARALLEL_SIZE:-1}"
    --gpu-memory-utilization "${GPU_MEMORY_UTILIZATION:-0.9}")
if [[ -n "${MAX_MODEL_LEN:-}" ]]; then args+=(--max-model-len "$MAX_MODEL_LEN"); fi
if [[ -n "${MAX_NUM_SEQS:-}" ]]; then args+=(--max-num-seqs "$MAX_NUM_SEQS"); fi
if [[ "${ENABLE_PREFIX_CACHING:-1}" == "1" ]]; then
    args+=(--enable-prefix-caching)
else
    args+=(--no-enable-prefix-caching)
fi

echo "+ vllm ${args[*]} $*" >&2
exec vllm "${args[@]}" "$@"
