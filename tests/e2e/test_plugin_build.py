"""End-to-end: a plugin installed from outside the repository (tests/support/hctqa_toy_plugin, entry points
`hctqa.metrics` and `hctqa.backends`) registers a metric and a backend that a real build uses.

The plugin is pip-installed (no dependencies, no build isolation: no network; its build backend is the
standard library's, tests/support/hctqa_toy_plugin/build_support) into a folder of this test's own, which
is on the PYTHONPATH of this test's dbt build alone: entry points are found from the dist-info folders on
sys.path, and the test environment, which other tests build with at the same time, never sees the plugin.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.dbt_project import build_vars, clone, query, run_dbt

PLUGIN_SOURCE = Path(__file__).resolve().parents[1] / "support" / "hctqa_toy_plugin"
DISTRIBUTION = "hctqa-toy-plugin"


def _pip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True, timeout=300)


def _entry_points_of_plugin(env: dict | None = None) -> list[str]:
    """The plugin's entry points as a fresh interpreter of this environment (plus `env`) sees them."""
    code = ("from importlib import metadata; print(sorted(f'{e.group}:{e.name}' for d in metadata.distributions() "
            f"if d.metadata['Name'] == {DISTRIBUTION!r} for e in d.entry_points if e.group.startswith('hctqa.')))")
    return eval(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                               env={**os.environ, **(env or {})}).stdout)


@pytest.fixture
def toy_plugin(tmp_path) -> dict:
    """The plugin installed into a folder of its own: the environment of a process that sees it."""
    source = shutil.copytree(PLUGIN_SOURCE, tmp_path / "plugin")  # installed from outside the repository
    site = tmp_path / "site"
    proc = _pip("install", "--no-deps", "--no-build-isolation", "--no-index", "-q", "--target", str(site), str(source))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)}


def test_a_plugin_metric_and_backend_are_used_by_a_build(benchmark_base, tmp_path, toy_plugin):
    assert _entry_points_of_plugin(toy_plugin) == ["hctqa.backends:first_gt_value", "hctqa.metrics:values_given"]
    assert _entry_points_of_plugin() == []  # the test environment itself does not have it
    project = clone(benchmark_base, tmp_path / "p")
    entry = {"name": "toy", "backend": "first_gt_value", "sample": 20}
    run_dbt(project, "build", "--select", "models/evaluation", "int_registry_catalog", "--vars",
            build_vars(eval_models=[entry]), env=toy_plugin)

    plugin_rows = query(project, """select kind, name, origin from intermediate.int_registry_catalog
                                    where origin like 'plugin %' order by kind""")
    assert plugin_rows == [("backends", "first_gt_value", f"plugin {DISTRIBUTION}"),
                           ("metrics", "values_given", f"plugin {DISTRIBUTION}")]
    # the plugin backend answered every chosen question with one value of its ground truth
    assert query(project, "select distinct backend from eval_requests where model_name = 'toy'") == [("first_gt_value",)]
    assert query(project, """select count(*), count(response) filter (where response <> '' and response not like '%||%')
                             from eval_predictions where model_name = 'toy'""") == [(20, 20)]
    # every prediction has a row of the plugin metric beside the built-in ones: one value given, a correct one
    rows = query(project, """select metric, count(*), min(value), max(value) from eval_scores
                             where model_name = 'toy' and scoring_mode = 'strict' and metric in ('values_given', 'precision')
                             group by metric order by metric""")
    assert rows == [("precision", 20, 1.0, 1.0), ("values_given", 20, 1.0, 1.0)]
    summary = query(project, """select value, n from eval_summary where model_name = 'toy' and level = 'overall'
                                and scoring_mode = 'strict' and metric = 'values_given'""")
    assert summary == [(1.0, 20)]
