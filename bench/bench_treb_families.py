"""What the TReB families (var question_suites [hctqa, treb]) add to question generation, side by side with
the hctqa suite alone on the same tables in one process, plus their numpy cross-check and their own views
(naming, robustness, plausibility, outlier).

    .venv/bin/python bench/bench_treb_families.py --duckdb PATH/TO/hctqa.duckdb [--repeats 3] [--workers 1]

Reads the generated tables of a build (any suites) from its DuckDB file, read-only, as
models/generation/int_question_instances.py does (header cells included), and times, `--repeats` times each
and alternating: generate_all with the hctqa families, generate_all with both suites, then once
family_cross_check on the TReB questions (their steps too) and question_renderings_table for those with a view
of their own (naming, perturbed and changed views). Medians of wall and process CPU time print as a Markdown
table (append it to bench/results/treb_families.md); with the default one worker the CPU time is the
generation's own, what to compare under load.
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

from generator_py.answers.computed_cross_check import family_cross_check  # noqa: E402
from generator_py.grid.relation import CELL_COLUMNS, TABLE_COLUMNS, grids_from_columns  # noqa: E402
from generator_py.questions.instances import generate_all, relational_tables, template_measures  # noqa: E402
from generator_py.questions.families import families_for_suites  # noqa: E402
from generator_py.questions.families.naming import NAMEABLE_ROLES  # noqa: E402
from generator_py.render.question_grid import question_renderings_table, value_paths  # noqa: E402


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
    roles = ", ".join(f"'{r}'" for r in NAMEABLE_ROLES + ("corner", "corner_split", "row_attribute_name", "indent"))
    headers = (con.table("intermediate.int_hct_cells").filter(f"role in ({roles})")
               .project("table_id, grid_row, grid_col, role, text").order("table_id, grid_row, grid_col").df())
    rows = con.table("intermediate.int_relational_rows").df()
    tables = relational_tables(con.table("intermediate.int_table_instances").df(), rows, aggregates, headers)
    hctqa_nl = con.table("staging.stg_nl_templates").df()
    nl = pd.concat([hctqa_nl, pd.read_csv(ROOT / "seeds" / "nl_templates_treb.csv", dtype=str,
                                          keep_default_na=False)], ignore_index=True)
    meanings, attrs = con.table("staging.stg_nl_table_meanings").df(), con.table("staging.stg_domain_attributes").df()
    # the domain knowledge a treb build reads (groupings, units): the seeds as the build would stage them
    knowledge = [pd.read_csv(ROOT / "seeds" / f"{n}.csv", dtype=str, keep_default_na=False)
                 for n in ("value_groupings", "measure_units")]
    measures = template_measures(*(con.table(f"staging.stg_{n}").df() for n in (
        "domain_attributes", "domain_values", "domain_value_ranges", "table_templates")), *knowledge)
    times: dict[str, list] = {"hctqa": [], "hctqa+treb": []}
    cpu: dict[str, list] = {"hctqa": [], "hctqa+treb": []}
    out = {}
    for _ in range(a.repeats):
        for name, suites in (("hctqa", ["hctqa"]), ("hctqa+treb", ["hctqa", "treb"])):
            t0, c0 = time.perf_counter(), time.process_time()
            out[name] = generate_all(tables, nl if "treb" in suites else hctqa_nl, meanings, attrs, 42, workers=a.workers, measures=measures,
                                     families=families_for_suites(suites))
            times[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    both = out["hctqa+treb"].to_pandas()
    treb = both[both["kind"] != "sql"]
    t0, c0 = time.perf_counter(), time.process_time()
    grid = con.table("intermediate.int_table_grid").project("table_id, grid_row, grid_col, text, caption").df()
    columns = ["question_id", "table_id", "family", "spec_json", "py_answer_json"]
    checked = family_cross_check(treb[columns + [c for c in ("steps_json",) if c in treb.columns]], rows, grid)
    t_check, c_check = time.perf_counter() - t0, time.process_time() - c0
    changed = treb[treb["hides_caption"] | treb["blank_grid_row"].notna() | treb["grid_change"].notna()]
    t0 = time.perf_counter()
    cells = con.table("intermediate.int_table_grid").project(", ".join(("table_id",) + CELL_COLUMNS + TABLE_COLUMNS)) \
        .order("table_id, grid_row, grid_col")
    cols = {k: v.tolist() for k, v in cells.fetchnumpy().items()}
    groups = con.table("intermediate.int_table_grid").filter("row_group is not null").project(
        "table_id, grid_row, grid_col, row_group, col_group").df()
    paths = value_paths(*(groups[c].tolist() for c in ("table_id", "grid_row", "grid_col", "row_group", "col_group")))
    rendered = question_renderings_table(grids_from_columns(cols), changed, paths)
    t_render = time.perf_counter() - t0
    med = {k: statistics.median(v) for k, v in times.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    print(f"| {len(tables)} tables | hctqa: {out['hctqa'].num_rows} questions, {med['hctqa']:.2f} s wall, "
          f"{med_cpu['hctqa']:.2f} s CPU (runs {', '.join(f'{x:.2f}' for x in times['hctqa'])}) | hctqa+treb: "
          f"{out['hctqa+treb'].num_rows} questions, {med['hctqa+treb']:.2f} s wall, {med_cpu['hctqa+treb']:.2f} s CPU "
          f"(runs {', '.join(f'{x:.2f}' for x in times['hctqa+treb'])}) | added {med['hctqa+treb'] - med['hctqa']:.2f} s "
          f"wall, {med_cpu['hctqa+treb'] - med_cpu['hctqa']:.2f} s CPU | cross-check of {len(checked)} TReB answers "
          f"{t_check:.2f} s wall, {c_check:.2f} s CPU, all agree: {bool(checked['agrees'].all())} | "
          f"{rendered.num_rows} renderings {t_render:.2f} s | workers {a.workers} |")
    import pyarrow.compute as pc
    alone = out["hctqa"]
    kept = out["hctqa+treb"].filter(pc.equal(out["hctqa+treb"]["suite"], "hctqa")).cast(alone.schema)
    print(json.dumps({"hctqa_rows_identical": kept.equals(alone)}))


if __name__ == "__main__":
    main()
