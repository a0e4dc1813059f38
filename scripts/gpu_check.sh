#!/usr/bin/env bash
# Check a local model on a GPU machine through both LLM backends, and compare the two runs.
#
# Usage:
#   scripts/gpu_check.sh MODEL_PATH [N_QUESTIONS]        (N_QUESTIONS defaults to 200)
#
# What it does, from the repository root:
#   1. builds the benchmark (benchmark_tables, benchmark_questions) unless the database already has it;
#   2. starts `vllm serve` on MODEL_PATH with scripts/serve_vllm.sh, waits until GET /v1/models answers,
#      and evaluates the model on a seeded sample of N_QUESTIONS questions through the `openai` backend;
#      then stops the server (a trap also stops it on any exit) so the GPU is free again;
#   3. evaluates the same model on the same sample with the same decoding parameters through the
#      in-process `vllm` backend (the openai entry is in the same build: its answers come from the
#      predictions cache, nothing is sent again);
#   4. prints overall precision/recall/F1/CC of both runs from eval_summary (strict and paper scoring modes) and
#      the share of questions where both runs gave the identical response (eval_predictions joined on
#      question_id). Greedy decoding (temperature 0) should give (nearly) identical responses.
#
# Settings (environment variables, defaults in brackets):
#   NAME            [basename of MODEL_PATH]  the entries are named NAME-openai and NAME-vllm
#   PORT            [8011]   port of the temporary `vllm serve` (on 127.0.0.1)
#   CONCURRENCY     [64]     requests in flight to the server
#   MAX_TOKENS      [256]    decoding: max_tokens (temperature is 0 in both runs)
#   MAX_MODEL_LEN   [unset: the model's own]  context length, for both the server and the in-process engine
#   GPU_MEMORY_UTILIZATION [0.9]  for both (they never run at the same time)
#   TENSOR_PARALLEL_SIZE   [1]
#   EXTRA_VARS      [empty]  more dbt vars for every build, YAML inline without braces, e.g. "replicas: 1"
#   SERVE_TIMEOUT_S [1200]   how long to wait for the server to answer /v1/models
#   HCTQA_DUCKDB_PATH [hctqa.duckdb in the repository root]
#   LOG_DIR         [logs/gpu_check-<time>]  the server's log and the dbt outputs
# Needs vLLM in the project's virtualenv: .venv/bin/pip install -e '.[vllm]'.
#
# Example:
#   scripts/gpu_check.sh /models/Qwen2.5-7B-Instruct 200
#   EXTRA_VARS="replicas: 1" MAX_MODEL_LEN=16384 scripts/gpu_check.sh /models/gemma-2-9b-it
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 || "$1" == "-h" || "$1" == "--help" ]]; then
    sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
MODEL_PATH="$1"
N_QUESTIONS="${2:-200}"
if [[ ! -e "$MODEL_PATH" ]]; then
    echo "gpu_check.sh: model path '$MODEL_PATH' does not exist" >&2
    exit 2
fi
MODEL_PATH="$(cd "$(dirname "$MODEL_PATH")" && pwd)/$(basename "$MODEL_PATH")"
if ! [[ "$N_QUESTIONS" =~ ^[1-9][0-9]*$ ]]; then
    echo "gpu_check.sh: N_QUESTIONS must be a positive integer, got '$N_QUESTIONS'" >&2
    exit 2
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
[[ -x "$PY" ]] || PY="$(command -v python3)"
DBT="$(dirname "$PY")/dbt"
[[ -x "$DBT" ]] || DBT="$(command -v dbt)"
export HCTQA_DUCKDB_PATH="${HCTQA_DUCKDB_PATH:-$ROOT/hctqa.duckdb}"
export DBT_SEND_ANONYMOUS_USAGE_STATS=false

NAME="${NAME:-$(basename "$MODEL_PATH")}"
NAME="$(printf '%s' "$NAME" | tr -c 'A-Za-z0-9_.-' '_')"
PORT="${PORT:-8011}"
CONCURRENCY="${CONCURRENCY:-64}"
MAX_TOKENS="${MAX_TOKENS:-256}"
SERVE_TIMEOUT_S="${SERVE_TIMEOUT_S:-1200}"
LOG_DIR="${LOG_DIR:-$ROOT/logs/gpu_check-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$LOG_DIR"
OPENAI_NAME="$NAME-openai"
VLLM_NAME="$NAME-vllm"
BASE_URL="http://127.0.0.1:$PORT/v1"

if ! "$PY" -c "import vllm" >/dev/null 2>&1; then
    echo "gpu_check.sh: vLLM is not importable by $PY; install it with: .venv/bin/pip install -e '.[vllm]'" >&2
    exit 2
fi

# dbt --vars for a build: the scale vars (EXTRA_VARS) plus eval_models made of the named entries.
# Both entries share sample and decoding parameters; JSON (valid YAML) is written by Python so that
# paths with any characters are quoted right.
vars_for() {
    "$PY" - "$@" <<'PYEOF'
import json, os, sys
import yaml

n = int(os.environ["N_QUESTIONS"])
params = {"temperature": 0.0, "max_tokens": int(os.environ["MAX_TOKENS"])}
entries = {
    "openai": {"name": os.environ["OPENAI_NAME"], "backend": "openai", "model": os.environ["NAME"],
               "base_url": os.environ["BASE_URL"], "sample": n, "params": params,
               "concurrency": int(os.environ["CONCURRENCY"]), "timeout_s": 600, "max_retries": 2},
    "vllm": {"name": os.environ["VLLM_NAME"], "backend": "vllm", "model": os.environ["MODEL_PATH"], "sample": n,
             "params": params, "tensor_parallel_size": int(os.environ.get("TENSOR_PARALLEL_SIZE") or 1),
             "gpu_memory_utilization": float(os.environ.get("GPU_MEMORY_UTILIZATION") or 0.9)},
}
if os.environ.get("MAX_MODEL_LEN"):
    entries["vllm"]["max_model_len"] = int(os.environ["MAX_MODEL_LEN"])
out = yaml.safe_load("{" + os.environ.get("EXTRA_VARS", "") + "}") or {}
if sys.argv[1:]:
    out["eval_models"] = [entries[k] for k in sys.argv[1:]]
print(json.dumps(out))
PYEOF
}
export N_QUESTIONS MAX_TOKENS OPENAI_NAME VLLM_NAME NAME BASE_URL CONCURRENCY MODEL_PATH

dbt_build() {  # dbt_build LOG_NAME ARGS...: run dbt, keep its output, show the tail on failure
    local log="$LOG_DIR/$1.log"
    shift
    echo "+ dbt $*" >&2
    if ! "$DBT" "$@" --project-dir "$ROOT" --profiles-dir "$ROOT" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "gpu_check.sh: dbt failed, full output in $log" >&2
        return 1
    fi
    grep -E "Done\. PASS=" "$log" >&2 || true
}

# ------------------------------------------------------------------ 1. the benchmark
have_benchmark() {
    "$PY" - <<'PYEOF'
import os, sys
import duckdb
path = os.environ["HCTQA_DUCKDB_PATH"]
if not os.path.exists(path):
    sys.exit(1)
try:
    con = duckdb.connect(path, read_only=True)
    n = con.execute("select count(*) from benchmark_questions").fetchone()[0]
    con.execute("select count(*) from benchmark_tables").fetchone()
except duckdb.Error:
    sys.exit(1)
sys.exit(0 if n > 0 else 1)
PYEOF
}
if have_benchmark; then
    echo "== benchmark found in $HCTQA_DUCKDB_PATH" >&2
else
    echo "== building the benchmark into $HCTQA_DUCKDB_PATH" >&2
    dbt_build benchmark build --select +benchmark_questions +benchmark_tables --exclude resource_type:test \
        --vars "$(vars_for)"
fi

# ------------------------------------------------------------------ 2. openai backend against vllm serve
SERVER_PID=""
stop_server() {
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "== stopping vllm serve (pid $SERVER_PID)" >&2
        kill -TERM -- "-$SERVER_PID" 2>/dev/null || kill -TERM "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 1 60); do
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 1
        done
        if kill -0 "$SERVER_PID" 2>/dev/null; then
            kill -KILL -- "-$SERVER_PID" 2>/dev/null || kill -KILL "$SERVER_PID" 2>/dev/null || true
        fi
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    SERVER_PID=""
}
trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== starting vllm serve on port $PORT (log: $LOG_DIR/vllm_serve.log)" >&2
# Its own process group (setsid), so stopping it also stops vLLM's engine processes.
PORT="$PORT" HOST=127.0.0.1 SERVED_MODEL_NAME="$NAME" \
    setsid "$ROOT/scripts/serve_vllm.sh" "$MODEL_PATH" >"$LOG_DIR/vllm_serve.log" 2>&1 &
SERVER_PID=$!

waited=0
until curl -fsS "$BASE_URL/models" >/dev/null 2>&1; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        tail -n 40 "$LOG_DIR/vllm_serve.log" >&2
        echo "gpu_check.sh: vllm serve exited before answering; log: $LOG_DIR/vllm_serve.log" >&2
        exit 1
    fi
    if (( waited >= SERVE_TIMEOUT_S )); then
        echo "gpu_check.sh: vllm serve did not answer $BASE_URL/models within ${SERVE_TIMEOUT_S}s" >&2
        exit 1
    fi
    sleep 5
    waited=$((waited + 5))
done
echo "== vllm serve answers after ~${waited}s" >&2

t0=$(date +%s)
dbt_build eval_openai build --select models/evaluation --vars "$(vars_for openai)"
t_openai=$(( $(date +%s) - t0 ))
stop_server

# ------------------------------------------------------------------ 3. in-process vllm backend
# Both entries: the openai one is answered from the cache, so eval_summary holds both runs.
t0=$(date +%s)
dbt_build eval_vllm build --select models/evaluation --vars "$(vars_for openai vllm)"
t_vllm=$(( $(date +%s) - t0 ))

# ------------------------------------------------------------------ 4. comparison
T_OPENAI="$t_openai" T_VLLM="$t_vllm" "$PY" - <<'PYEOF'
import os
import duckdb

a, b = os.environ["OPENAI_NAME"], os.environ["VLLM_NAME"]
con = duckdb.connect(os.environ["HCTQA_DUCKDB_PATH"], read_only=True)
print(f"\nModel {os.environ['MODEL_PATH']}, {os.environ['N_QUESTIONS']} questions, "
      f"temperature 0, max_tokens {os.environ['MAX_TOKENS']}")
print(f"dbt evaluation build: openai backend {os.environ['T_OPENAI']} s (server already up), "
      f"vllm backend {os.environ['T_VLLM']} s (engine start included)\n")
rows = con.execute("""
    select model_name, scoring_mode, n, n_left_out,
           max(value) filter (where metric = 'precision'), max(value) filter (where metric = 'recall'),
           max(value) filter (where metric = 'f1'), max(value) filter (where metric = 'cc')
    from eval_summary where level = 'overall' and model_name in (?, ?)
    group by all order by scoring_mode, model_name""", [a, b]).fetchall()
print(f"{'model':<40} {'mode':<7} {'n':>5} {'left':>5} {'P':>7} {'R':>7} {'F1':>7} {'CC':>7}")
for m, mode, n, lo, p, r, f, cc in rows:
    fmt = lambda x: f"{x:7.4f}" if x is not None else "    n/a"
    print(f"{m:<40} {mode:<7} {n:>5} {lo:>5} {fmt(p)} {fmt(r)} {fmt(f)} {fmt(cc)}")
errors = con.execute("select model_name, count(*) from eval_prediction_errors group by 1 order by 1").fetchall()
for m, n in errors:
    print(f"unanswered requests of {m}: {n} (see eval_prediction_errors)")
# This build's predictions of both runs, matched by question.
n, same, same_stripped = con.execute("""
    with p as (
        select r.model_name, r.question_id, p.response
        from eval_requests r join eval_predictions p using (cache_key)
        where r.model_name in (?, ?)
    )
    select count(*), count(*) filter (where x.response = y.response),
           count(*) filter (where trim(x.response) = trim(y.response))
    from p x join p y on x.question_id = y.question_id
    where x.model_name = ? and y.model_name = ?""", [a, b, a, b]).fetchone()
if n:
    print(f"\nidentical responses: {same}/{n} = {same / n:.1%} (ignoring surrounding whitespace: "
          f"{same_stripped / n:.1%})")
else:
    print("\nidentical responses: no question answered by both runs")
PYEOF
echo "logs: $LOG_DIR" >&2
