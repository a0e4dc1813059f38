"""What the two-table and OLAP families (var question_suites [hctqa, beyond]) add to question generation, side by
side with the hctqa suite alone on the same tables in one process, plus their DuckDB ground truth, their SQLite
check and the two-table questions' views of both tables.

    .venv/bin/python bench/bench_beyond_families.py --duckdb PATH/TO/hctqa.duckdb [--repeats 3] [--workers 1]

Reads the generated tables of a build (any suites) from its DuckDB file, read-only, as
models/generation/int_question_instances.py does, and times, `--repeats` times each and alternating, generate_all
with the hctqa families and with both suites (wall and CPU seconds of this process; with `--workers 1` the CPU
time is all of it), then once duckdb_answers, cross_check and the views. One Markdown row prints (append it to
bench/results/beyond_families.md), then whether the hctqa rows of the two runs are identical.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from generator_py.answers.sql_text_answers import cross_check, duckdb_answers  # noqa: E402
from generator_py.questions.families import families_for_suites  # noqa: E402
from generator_py.questions.instances import generate_all, relational_tables, template_measures  # noqa: E402
from generator_py.render.question_grid import several_tables_renderings  # noqa: E402
from generator_py.render.registry import format_names  # noqa: E402


def _timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    import duckdb

    ap = argparse.ArgumentParser()
    ap.add_argument("--duckdb", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    con = duckdb.connect(a.duckdb, read_only=True)
    aggregates = (con.table("intermediate.int_hct_cells").filter("role = 'aggregate'")
                  .project("table_id, row_group, col_group, value").distinct().order("table_id, row_group, col_group").df())
    rows = con.table("intermediate.int_relational_rows").df()
    tables = relational_tables(con.table("intermediate.int_table_instances").df(), rows, aggregates)
    hctqa_nl = con.table("staging.stg_nl_templates").df()
    nl = pd.concat([hctqa_nl, pd.read_csv(ROOT / "seeds" / "nl_templates_beyond.csv", dtype=str,
                                          keep_default_na=False)], ignore_index=True)
    meanings, attrs = con.table("staging.stg_nl_table_meanings").df(), con.table("staging.stg_domain_attributes").df()
    measures = template_measures(*(con.table(f"staging.stg_{n}").df() for n in (
        "domain_attributes", "domain_values", "domain_value_ranges", "table_templates")))
    runs: dict[str, list] = {"hctqa": [], "hctqa+beyond": []}
    out = {}
    for _ in range(a.repeats):
        for name, suites in (("hctqa", ["hctqa"]), ("hctqa+beyond", ["hctqa", "beyond"])):
            out[name], wall, cpu = _timed(lambda: generate_all(
                tables, nl if "beyond" in suites else hctqa_nl, meanings, attrs, 42, workers=a.workers,
                measures=measures, families=families_for_suites(suites)))
            runs[name].append((wall, cpu))
    both = out["hctqa+beyond"].to_pandas()
    beyond = both[both["kind"] == "sql_text"].sort_values("question_id")
    answers, t_answers, c_answers = _timed(lambda: duckdb_answers(beyond[["question_id", "tables", "sql"]], rows))
    checked, t_check, c_check = _timed(lambda: cross_check(beyond, answers.to_pandas(), rows))
    several = beyond[beyond["tables"].map(len) > 1][["question_id", "tables"]]
    texts = con.table("intermediate.int_table_renderings").project(
        ", ".join(("table_id",) + tuple(f'"{n}"' for n in format_names(text_only=True)))).df()
    views, t_views, _ = _timed(lambda: list(several_tables_renderings(several, texts)))
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
    counts = beyond["family"].value_counts().sort_index()
    print(f"| {len(tables)} tables | hctqa: {out['hctqa'].num_rows} questions, {med['hctqa'][0]:.2f} s wall, "
          f"{med['hctqa'][1]:.2f} s CPU | hctqa+beyond: {out['hctqa+beyond'].num_rows} questions, "
          f"{med['hctqa+beyond'][0]:.2f} s wall, {med['hctqa+beyond'][1]:.2f} s CPU | added "
          f"{med['hctqa+beyond'][0] - med['hctqa'][0]:.2f} s wall, {med['hctqa+beyond'][1] - med['hctqa'][1]:.2f} s "
          f"CPU | DuckDB answers of {len(beyond)} questions {t_answers:.2f} s ({c_answers:.2f} s CPU) | SQLite check "
          f"{t_check:.2f} s ({c_check:.2f} s CPU), all agree: {bool(checked.to_pandas()['agrees'].all())} | "
          f"{len(views)} two-table views {t_views:.2f} s | workers {a.workers} |")
    print(", ".join(f"{f} {n}" for f, n in counts.items()))
    import pyarrow.compute as pc
    alone = out["hctqa"]
    kept = out["hctqa+beyond"].filter(pc.equal(out["hctqa+beyond"]["suite"], "hctqa")).cast(alone.schema)
    print(json.dumps({"hctqa_rows_identical": kept.equals(alone),
                      "runs": {k: [[round(w, 2), round(c, 2)] for w, c in v] for k, v in runs.items()}}))


if __name__ == "__main__":
    main()
