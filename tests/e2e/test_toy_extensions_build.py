"""End-to-end: one toy of each extension kind, added through exactly the files docs/architecture.md's
extension table names (a family: its module and its phrasings; a format, a backend, a metric: one file
each), shows up in a real build of a copy of the project: in the registry catalog, in the benchmark and
in the evaluation marts.
"""
from __future__ import annotations

import csv
import filecmp
import io
import json
import os
from pathlib import Path

import pytest

from support.dbt_project import SMALL, copy_project, query, run_dbt

FAMILY_MODULE = "generator_py/questions/families/toy_cell_family.py"
NL_SEED = "seeds/nl_templates.csv"
FORMAT_MODULE = "generator_py/render/tsv_format.py"
BACKEND_MODULE = "evaluation_py/backends/toy_backend.py"
METRICS_MODULE = "evaluation_py/scoring/metrics.py"
TOY_NL_TEMPLATE_ID = "90"

TOY_FAMILY = '''"""A toy family: the value of one cell, not a Table III template (suite toy)."""
from ..template_syntax import NLRequirements
from .lookup import ValueLookup


class ToyCell(ValueLookup):
    """The value of one cell (a toy family)."""

    suite = "toy"

    def __init__(self):
        super().__init__(1, "one", "one")
        self.family_id, self.template_id, self.nl = "toy_cell", None, NLRequirements(90)


FAMILIES = (ToyCell(),)
'''
TOY_FORMAT = '''"""A toy text format: tab-separated grid lines."""
from generator_py.render.registry import register_format


def render_tsv(grid):
    return "".join("\\t".join(line) + "\\n" for line in grid.texts())


register_format("tsv", "TSV", render_tsv)
'''
TOY_BACKEND = '''"""A toy backend: answers every question with 42."""
from .base import Backend, Prediction, register


@register("toy")
class ToyBackend(Backend):
    """Answers 42."""

    needs_model = False

    def run(self, requests, on_result):
        for r in requests:
            on_result(Prediction(r.cache_key, r.question_id, r.model_name, "42"))
'''
TOY_METRIC = '''

def answered(m: Match) -> float:
    return 1.0 if m.n_given > 0 else 0.0


register("answered", answered, "1 when the answer gives any value", binary=True)
'''


def _changed_files(copy: Path, original: Path) -> set[str]:
    """Files of the copy that are new or differ from the original project (what the newcomer touched)."""
    out = set()
    for path in copy.rglob("*"):
        rel = path.relative_to(copy)
        if path.is_file() and "__pycache__" not in rel.parts:
            other = original / rel
            if not other.is_file() or not filecmp.cmp(path, other, shallow=False):
                out.add(rel.as_posix())
    return out


def _add_toys(project: Path) -> None:
    (project / FAMILY_MODULE).write_text(TOY_FAMILY, encoding="utf-8")
    seed = project / NL_SEED
    rows = list(csv.DictReader(io.StringIO(seed.read_text(encoding="utf-8"))))
    toy_rows = [{**r, "template_id": TOY_NL_TEMPLATE_ID} for r in rows if r["template_id"] == "1"]
    with seed.open("a", encoding="utf-8", newline="") as f:
        csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n").writerows(toy_rows)  # as the file ends its lines
    (project / FORMAT_MODULE).write_text(TOY_FORMAT, encoding="utf-8")
    (project / BACKEND_MODULE).write_text(TOY_BACKEND, encoding="utf-8")
    with (project / METRICS_MODULE).open("a", encoding="utf-8") as f:
        f.write(TOY_METRIC)


@pytest.fixture(scope="module")
def toy_project(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("toys") / "project")
    _add_toys(project)
    changed = _changed_files(project, Path(__file__).resolve().parents[2])  # before the build writes its outputs
    entry = {"name": "toy", "backend": "toy", "formats": ["tsv"], "sample": 10}
    build_vars = json.dumps({**SMALL, "question_suites": ["hctqa", "toy"], "eval_models": [entry]})
    # the copy's packages, not the installed ones, answer the build's imports
    env = {"PYTHONPATH": os.pathsep.join([str(project), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    run_dbt(project, "build", "--select", "+benchmark_questions", "+benchmark_tables", "models/evaluation",
            "int_registry_catalog", "--exclude", "resource_type:test", "--vars", build_vars, env=env)
    return project, changed


@pytest.fixture(scope="module")
def toy_build(toy_project):
    return toy_project[0]


def test_each_toy_touched_exactly_the_files_the_docs_state(toy_project):
    _, changed = toy_project
    assert changed == {FAMILY_MODULE, NL_SEED, FORMAT_MODULE, BACKEND_MODULE, METRICS_MODULE}
    table = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text(encoding="utf-8")
    for kind, count in (("a question family", 2), ("a table format", 1), ("a backend", 1), ("a metric", 1)):
        assert f"| {kind} | {count}: " in table, kind


def test_the_toys_are_in_the_registry_catalog(toy_build):
    rows = query(toy_build, """select kind, name, origin from intermediate.int_registry_catalog
                                 where name in ('toy_cell', 'tsv', 'toy', 'answered') order by kind""")
    assert rows == [("backends", "toy", "evaluation_py.backends.toy_backend"),
                    ("families", "toy_cell", "generator_py.questions.families.toy_cell_family"),
                    ("formats", "tsv", "generator_py.render.tsv_format"),
                    ("metrics", "answered", "evaluation_py.scoring.metrics")]


def test_the_toy_family_and_format_are_in_the_benchmark(toy_build):
    (n, suites, templates) = query(toy_build, """select count(*), list(distinct suite), list(distinct template_id)
                                                   from benchmark_questions where family = 'toy_cell'""")[0]
    assert n > 0 and suites == ["toy"] and templates == [None]
    (n_tables, n_tsv) = query(toy_build, "select count(*), count(*) filter (where tsv like '%\t%') from benchmark_tables")[0]
    assert n_tables > 0 and n_tsv == n_tables


def test_the_toy_backend_metric_and_format_are_in_the_evaluation(toy_build):
    assert query(toy_build, """select distinct backend, table_format from eval_requests where model_name = 'toy'""") == [
        ("toy", "tsv")]
    assert query(toy_build, "select count(*), count(*) filter (where response = '42') from eval_predictions") == [(10, 10)]
    assert query(toy_build, """select count(*), min(value), max(value) from eval_scores
                                 where metric = 'answered' and scoring_mode = 'strict'""") == [(10, 1.0, 1.0)]
