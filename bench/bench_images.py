"""Benchmark the table images: every default-scale table drawn as a PNG and written to disk.

Builds the generation models of the default scale in a scratch copy of the project (or uses
`--db`, a database that already holds `intermediate.int_table_grid`), then, `--runs` times: reads the
cells and table fields, turns them into ImageTables, draws and writes every PNG with
`write_table_images` (worker processes: the CPUs this process may use). Prints the median wall time
of each step and of the whole, the CPU seconds of the drawing (all processes), the load average
before each run (the machine is shared), and checks that every run wrote the same bytes.

    .venv/bin/python bench/bench_images.py [--db PATH/hctqa.duckdb] [--runs 3]
"""
from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import ROOT, dump, median, report, scratch_project, timed_dbt  # noqa: E402

from generator_py.render.image import CELL_COLUMNS, tables_from_frames, write_table_images  # noqa: E402


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def one_run(db: Path, folder: Path) -> dict:
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    con = duckdb.connect(str(db), read_only=True)
    # what benchmark_table_images reads: the grid of every table
    cells = con.sql(f"select {', '.join(CELL_COLUMNS)} from intermediate.int_table_grid").df()
    fields = con.sql("select distinct table_id, caption, borders from intermediate.int_table_grid").df()
    con.close()
    t1 = time.perf_counter()
    tables = tables_from_frames(cells, fields)
    t2 = time.perf_counter()
    cpu = cpu_seconds()
    written = write_table_images(tables, folder)
    t3 = time.perf_counter()
    digest = hashlib.sha256("".join(w.sha256 for w in written).encode()).hexdigest()[:16]
    return {"tables": len(written), "read_s": t1 - t0, "convert_s": t2 - t1, "draw_write_s": t3 - t2,
            "total_s": t3 - t0, "draw_cpu_s": cpu_seconds() - cpu, "load_before": load, "digest": digest,
            "megabytes": sum(Path(w.path).stat().st_size for w in written) / 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="a built database (default: build the generation models in a scratch copy)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    db = args.db
    if db is None:
        project = scratch_project()
        wall, _ = timed_dbt(project, "build", "--select", "+int_table_grid",
                            "--exclude", "resource_type:test")
        print(f"generation models built in {wall:.1f} s")
        db = project / "hctqa.duckdb"
    runs = []
    for i in range(args.runs):
        folder = Path(tempfile.mkdtemp(prefix="hctqa-images-"))
        runs.append(one_run(db, folder))
        shutil.rmtree(folder)
        print({k: round(v, 2) if isinstance(v, float) else v for k, v in runs[-1].items()})
    if len({r["digest"] for r in runs}) != 1:
        raise SystemExit("runs wrote different bytes: " + ", ".join(r["digest"] for r in runs))
    row = {"tables": runs[0]["tables"], "workers": len(os.sched_getaffinity(0))}
    for key in ("read_s", "convert_s", "draw_write_s", "total_s", "draw_cpu_s", "load_before"):
        row[key] = median([r[key] for r in runs])
    row["runs total_s"] = ", ".join(f"{r['total_s']:.1f}" for r in runs)
    row["MB written"] = round(runs[0]["megabytes"], 1)
    dump(ROOT / "bench" / "results" / "images.md", report("Table images at default scale", [row]))


if __name__ == "__main__":
    main()
