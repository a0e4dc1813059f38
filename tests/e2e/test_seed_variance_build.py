"""End-to-end: `hctqa seeds 1 2` on one domain at one replica: each seed built into a database of its
own (the questions, the baselines' answers, their scores and the leaderboard), then analysis_seed_variance in the
main database, read from the prediction store by each seed's fingerprint."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from support.dbt_project import copy_project, run_dbt
from evaluation_py.analysis.seed_variance import detectable_difference
from evaluation_py.running.results import ResultsIndex
from generator_py.dbt_glue.build_config import fingerprint_for_seed

SEEDS = (1, 2)
SCALE = "{replicas: 1, domains: [students]}"  # the smallest domain: about 50 tables a seed


def _one(path: Path, sql: str):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def seeds_project(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("seeds") / "project")
    env = {**os.environ, "HCTQA_DUCKDB_PATH": str(project / "hctqa.duckdb"), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    hctqa = Path(sys.executable).parent / "hctqa"
    proc = subprocess.run([str(hctqa), "seeds", *map(str, SEEDS), "--vars", SCALE, "--project-dir", str(project)],
                          cwd=project, env=env, capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    (project / "seeds.stdout").write_text(proc.stdout)
    return project


def test_each_seed_is_a_build_of_its_own_under_its_own_fingerprint(seeds_project):
    main = seeds_project / "hctqa.duckdb"
    config = duckdb.connect(str(main), read_only=True).execute(
        "select * from staging.stg_build_config").df().iloc[0]
    fingerprints = set()
    for seed in SEEDS:
        db = seeds_project / f"hctqa_seed{seed}.duckdb"
        (state, fingerprint), = _one(db, "select state, build_fingerprint from main.build_status")
        assert state == "complete" and fingerprint == fingerprint_for_seed(config, seed)
        assert _one(db, "select distinct build_fingerprint from main.benchmark_questions") == [(fingerprint,)]
        assert _one(db, "select count(distinct table_id) from main.benchmark_tables")[0][0] > 40
        fingerprints.add(fingerprint)
    assert len(fingerprints) == len(SEEDS) and config["build_fingerprint"] not in fingerprints  # the main seed is 42
    # the main database holds one build: the comparison, stamped with its own fingerprint
    assert _one(main, "select state, build_fingerprint from main.build_status") == [
        ("complete", config["build_fingerprint"])]
    with ResultsIndex(seeds_project / "cache" / "predictions.sqlite") as index:
        assert set(index.leaderboards(fingerprints)["fingerprint"]) == fingerprints


def test_the_spread_between_seeds_is_read_from_each_seeds_leaderboard(seeds_project):
    main = seeds_project / "hctqa.duckdb"
    rows = _one(main, """select model_name, n_seeds, seeds, mean, sd_between_seeds, within_build_half_width,
                                detectable_difference from main.analysis_seed_variance
                         where metric = 'f1' and scoring_mode = 'strict' and table_format = 'html'
                         order by model_name""")
    assert [r[0] for r in rows] == ["header_match", "oracle"]
    for name, n, seeds, mean, sd, half, detectable in rows:
        assert n == len(SEEDS) and list(seeds) == list(SEEDS)
        means = [_one(seeds_project / f"hctqa_seed{s}.duckdb",
                      f"select mean from main.eval_leaderboard where model_name = '{name}' and metric = 'f1' and "
                      "scoring_mode = 'strict' and table_format = 'html'")[0][0] for s in SEEDS]
        assert mean == pytest.approx(sum(means) / len(SEEDS))
        assert detectable == pytest.approx(detectable_difference(sd, len(SEEDS)))
    header_match, oracle = rows
    assert (oracle[3], oracle[4], oracle[5]) == (1.0, 0.0, 0.0)  # the ground truth on every seed
    assert header_match[4] > 0 and header_match[5] > 0  # other tables and questions move its score
    out = (seeds_project / "seeds.stdout").read_text()
    assert f"header_match | html | direct | f1 | {len(SEEDS)} |" in out  # the command prints the comparison


def test_a_seed_without_a_build_stops_the_comparison_naming_it(seeds_project):
    proc = run_dbt(seeds_project, "build", "--select", "analysis_seed_variance", "--vars",
                   "{seed_variance_seeds: [1, 2, 4]}", check=False)
    assert proc.returncode != 0
    assert "seed(s) 4 (fingerprint" in proc.stdout and "hctqa seeds" in proc.stdout
