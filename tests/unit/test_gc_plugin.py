"""The dbt-duckdb plugin that keeps the cyclic garbage collector off the heap dbt parsed before the first model
(evaluation_py/dbt_glue/gc_plugin.py)."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_the_first_connection_freezes_the_heap_once_and_makes_young_collections_rarer():
    # in a process of its own: freezing is for the life of the process
    code = textwrap.dedent("""
        import gc
        from dbt.adapters.duckdb.plugins import BasePlugin
        from evaluation_py.dbt_glue.gc_plugin import YOUNG_THRESHOLD

        parsed = [[i] for i in range(50_000)]  # what the process holds at the first connection
        default = gc.get_threshold()
        assert gc.get_freeze_count() == 0
        plugin = BasePlugin.create("evaluation_py.dbt_glue.gc_plugin")  # as dbt-duckdb makes it
        assert gc.get_freeze_count() == 0  # nothing before a connection
        plugin.configure_cursor(None)
        frozen = gc.get_freeze_count()
        made_later = [[i] for i in range(50_000)]  # what the models make
        plugin.configure_cursor(None)  # every later connection
        print(frozen >= 50_000, gc.get_freeze_count() == frozen,
              gc.get_threshold() == (YOUNG_THRESHOLD, default[1], default[2]), YOUNG_THRESHOLD > default[0])
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "True", "True"], out.stderr


def test_the_projects_profile_loads_the_plugin():
    from dbt.adapters.duckdb.plugins import BasePlugin

    profile = yaml.safe_load((ROOT / "profiles.yml").read_text())["hctqa"]
    modules = [p["module"] for p in profile["outputs"][profile["target"]]["plugins"]]
    assert "evaluation_py.dbt_glue.gc_plugin" in modules
    for module in modules:
        assert isinstance(BasePlugin.create(module), BasePlugin)
