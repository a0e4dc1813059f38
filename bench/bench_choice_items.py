"""Benchmark: all choice items and probes (benchmark_choice_items) of a built database, target <= 15 s.

Reads the model's inputs from a database a `dbt build` made (not timed), then times
generator_py.choice_items.build_choice_items --runs times: wall and CPU seconds, the item count,
and the two halves (question items, probes) of the last run. Writes bench/results/choice_items.md.

    .venv/bin/dbt build --select +benchmark_questions +int_table_grid     # the default scale, once
    .venv/bin/python bench/bench_choice_items.py --database hctqa.duckdb --runs 3
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402
import pandas as pd  # noqa: E402

from bench.common import dump, median, report  # noqa: E402
from generator_py.choice_items import items as choice  # noqa: E402
from generator_py.choice_items.choice_table import text_grids  # noqa: E402
from generator_py.choice_items.statements import StatementWriter  # noqa: E402

LIMIT_S = 15.0


def load_inputs(database: str) -> dict:
    con = duckdb.connect(database, read_only=True)
    try:
        return {
            "questions": con.sql("select question_id, table_id, template_id, question, answer_gt, answer_rows, spec_json "
                                 "from main.benchmark_questions where source = 'synthetic'").df(),
            "instances": con.sql("select table_id, domain, template_name, variant_id, row_attributes, col_attributes "
                                 "from intermediate.int_table_instances").df(),
            "relational_rows": con.sql("select table_id, rel_row, row_labels, col_labels, value "
                                       "from intermediate.int_relational_rows").df(),
            "cells": con.sql("select table_id, grid_row, grid_col, role, value, row_group, col_group "
                             "from intermediate.int_hct_cells where role in ('data', 'aggregate')").df(),
            "grid": con.sql("select table_id, grid_row, grid_col, rowspan, colspan, text "
                            "from intermediate.int_table_grid").df(),
            "statements": pd.read_csv(ROOT / "seeds" / "choice_statements.csv", dtype=str, keep_default_na=False),
            "attributes": con.sql("select * from staging.stg_domain_attributes").df(),
        }
    finally:
        con.close()


def _children_cpu() -> float:
    """CPU seconds of the finished worker processes (the items are made in forked workers)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--database", default=str(ROOT / "hctqa.duckdb"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "choice_items.md"))
    args = ap.parse_args()
    inputs = load_inputs(args.database)
    walls, cpus, n = [], [], 0
    load_start = os.getloadavg()[0]  # the machine is shared: the wall time means little without the load
    for _ in range(args.runs):
        w, c = time.perf_counter(), time.process_time() + _children_cpu()
        frame = choice.build_choice_items(**inputs, seed=args.seed)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() + _children_cpu() - c)
        n = len(frame)
    # the parts, once, in one process, CPU seconds
    t = time.process_time()
    grids = text_grids(inputs["grid"])
    tables = choice.choice_tables(inputs["instances"], inputs["relational_rows"], inputs["cells"], grids)
    t_tables = time.process_time() - t
    t = time.process_time()
    choice.question_items(inputs["questions"], tables, args.seed,
                          StatementWriter(inputs["statements"], inputs["attributes"]))
    t_questions = time.process_time() - t
    t = time.process_time()
    choice.probe_items(grids, args.seed)
    t_probes = time.process_time() - t
    counts = pd.Series(frame["subset"].to_pylist()).value_counts().to_dict()  # an Arrow table
    rows = [{"tables": inputs["grid"]["table_id"].nunique(), "questions": len(inputs["questions"]), "items": n,
             "wall_s (runs)": ", ".join(f"{x:.2f}" for x in walls), "median wall_s": median(walls),
             "median cpu_s (all processes)": median(cpus), "target_s": LIMIT_S, "met": median(walls) <= LIMIT_S,
             "load (1 min, start-end)": f"{load_start:.1f}-{os.getloadavg()[0]:.1f}",
             "tables_cpu_s": round(t_tables, 2), "question_items_cpu_s": round(t_questions, 2), "probes_cpu_s": round(t_probes, 2)}]
    text = report("All choice items and probes (benchmark_choice_items)", rows)
    text += "\nItems per subset: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + "\n"
    dump(Path(args.out), text)


if __name__ == "__main__":
    main()
