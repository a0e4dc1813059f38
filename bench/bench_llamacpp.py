"""The packaged Gemma 3 270M behind llama.cpp's server, through the `llamacpp` backend, on this machine.

Builds a small benchmark (one domain, one replica) in a scratch copy, picks 100 questions on 20
tables (5 per table, tables in a seeded order) and measures, with one server (one run each):

- requests/s and output tokens/s over the 100 Markdown prompts sent grouped by table (consecutive
  prompts share the table prefix, which llama.cpp keeps in its KV cache), then the same prompts in a
  seeded shuffled order; the ratio of the two wall times is the gain from prefix reuse;
- prompt tokens per question of the HTML, Markdown and CSV renderings of the same tables (the server's
  tokenizer on the chat-formatted prompt).

    .venv/bin/python bench/bench_llamacpp.py [--threads 2] [--max-tokens 32] [--out bench/results/llamacpp.md]
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import duckdb  # noqa: E402

from common import machine, scratch_project, timed_dbt  # noqa: E402
from evaluation_py.backends import get_backend, openai_backend  # noqa: E402
from evaluation_py.dbt_glue.evaluation_inputs import eval_inputs  # noqa: E402
from generator_py.core.rng import stable_int  # noqa: E402

SEED = 42
N_TABLES, PER_TABLE = 20, 5


def pick_questions(questions):
    """5 questions on each of 20 tables: tables in a seeded order, questions by id."""
    counts = questions.groupby("table_id").size()
    tables = sorted((t for t, n in counts.items() if n >= PER_TABLE), key=lambda t: stable_int(SEED, "bench-llama", t))
    chosen = questions[questions.table_id.isin(tables[:N_TABLES])].sort_values(["table_id", "question_id"])
    return chosen.groupby("table_id").head(PER_TABLE)


def timed_run(backend, requests, keep_order: bool) -> dict:
    """One backend run; with `keep_order` the requests go out in the given order, not grouped by table."""
    out = []
    grouping = openai_backend.group_by_prompt_prefix
    if keep_order:
        openai_backend.group_by_prompt_prefix = list
    try:
        t0 = time.perf_counter()
        backend.run(requests, out.append)
        wall = time.perf_counter() - t0
    finally:
        openai_backend.group_by_prompt_prefix = grouping
    answered = [p for p in out if p.response is not None]
    completion = sum(p.completion_tokens for p in answered)
    prompt = sum(p.prompt_tokens for p in answered)
    return {"requests": len(out), "answered": len(answered), "wall_s": round(wall, 1),
            "requests_per_s": round(len(out) / wall, 3), "output_tokens_per_s": round(completion / wall, 1),
            "prompt_tokens_per_s": round(prompt / wall, 1),
            "median_latency_s": round(statistics.median(p.latency_s for p in answered), 3)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "llamacpp.md"))
    a = ap.parse_args()

    project = scratch_project()
    vars_ = json.dumps({"replicas": 1, "domains": ["accidents"], "seed": SEED})
    timed_dbt(project, "build", "--select", "+benchmark_questions", "+benchmark_tables",
              "--exclude", "resource_type:test", "--vars", vars_)
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    questions = con.execute("select question_id, table_id, source, question, answer_gt from benchmark_questions").df()
    tables = con.execute("select table_id, html, csv, markdown from benchmark_tables").df()
    con.close()
    chosen = pick_questions(questions)
    entry = {"name": "gemma270m", "backend": "llamacpp", "formats": ["markdown", "html", "csv"], "n_ctx": 4096,
             "n_threads": a.threads, "params": {"max_tokens": a.max_tokens}}
    inputs = eval_inputs(chosen, tables, repr([entry]), str(SEED))
    requests = inputs.requests
    by_format = {f: [r for r in requests if r.table_format == f] for f in ("html", "markdown", "csv")}
    markdown = by_format["markdown"]
    assert len(markdown) == N_TABLES * PER_TABLE and len({r.table_id for r in markdown}) == N_TABLES

    t0 = time.perf_counter()
    backend = get_backend("llamacpp", {**inputs.specs[0].backend_config,
                                       "server_log": str(project / "logs" / "llamacpp-server.log")})
    startup = time.perf_counter() - t0
    try:
        tokens = {f: [backend.prompt_tokens(r.messages) for r in rs] for f, rs in by_format.items()}
        grouped = timed_run(backend, markdown, keep_order=False)
        shuffled_order = list(markdown)
        random.Random(SEED).shuffle(shuffled_order)
        shuffled = timed_run(backend, shuffled_order, keep_order=True)
    finally:
        backend.close()

    adjacent_same = sum(a.table_id == b.table_id for a, b in zip(shuffled_order, shuffled_order[1:]))
    lines = [
        "## llama.cpp: Gemma 3 270M Q4_K_M on the CPU", "",
        f"Machine: {machine()}, {a.threads} server threads, shared with other jobs. Date: {time.strftime('%Y-%m-%d')}. "
        f"Command: `{' '.join(sys.argv)}`. One run each.", "",
        f"100 questions on 20 tables of the accidents domain (5 each), Markdown, `max_tokens: {a.max_tokens}`, "
        f"temperature 0, concurrency 1. Server start (model load until it answers): {startup:.1f} s.", "",
        "| order | " + " | ".join(grouped) + " |", "|---|" + "---|" * len(grouped),
        "| grouped by table | " + " | ".join(str(v) for v in grouped.values()) + " |",
        "| shuffled | " + " | ".join(str(v) for v in shuffled.values()) + " |", "",
        f"Prefix-reuse gain (shuffled wall / grouped wall): {shuffled['wall_s'] / grouped['wall_s']:.2f}x "
        f"(the shuffled order keeps {adjacent_same} of 99 neighbours on the same table).", "",
        "Prompt tokens per question, same 100 questions and tables (chat-formatted, the server's tokenizer):", "",
        "| format | mean | median | min | max | vs Markdown |", "|---|---|---|---|---|---|",
    ]
    md_mean = statistics.mean(tokens["markdown"])
    for f in ("html", "markdown", "csv"):
        v = tokens[f]
        lines.append(f"| {f} | {statistics.mean(v):.0f} | {statistics.median(v):.0f} | {min(v)} | {max(v)} | "
                     f"{statistics.mean(v) / md_mean:.2f}x |")
    text = "\n".join(lines) + "\n"
    Path(a.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
