"""LLaMA-Factory training configs per fine-tuning set (the paper's hyperparameters, datasets that
dataset_info.json names) and scripts/finetune.sh, run against a stand-in `llamafactory-cli` that records its
arguments (the process boundary)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from evaluation_py.exports.finetune_sets import COMBINED_CONFIGS, FINETUNE_SETS, write_finetune_exports
from evaluation_py.exports.finetune_training import training_config, write_training_configs

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "finetune.sh"


def _examples(config: str) -> pd.DataFrame:
    return pd.DataFrame({"id": [f"{config}-{i}" for i in range(3)], "table_id": ["t1", "t2", "t3"],
                         "original_table_id": ["t1", "t2", "t3"], "split": ["train", "validation", "test"],
                         "instruction": "i", "input": "x", "output": "y"})


@pytest.fixture
def exports(tmp_path):
    configs = {c: _examples(c) for c in ("questions_real", "questions_synthetic")}
    out = tmp_path / "exports"
    written = write_training_configs(out / "llamafactory", write_finetune_exports(out, configs,
                                                                                  combined=COMBINED_CONFIGS))
    return out, written


def test_each_set_has_a_config_with_the_papers_hyperparameters_on_its_train_split(exports):
    out, written = exports
    lf = out / "llamafactory"
    assert sorted(w.path.name for w in written) == sorted(f"train_{s}.yaml" for s in FINETUNE_SETS)
    info = json.loads((lf / "dataset_info.json").read_text())
    for finetune_set, parts in FINETUNE_SETS.items():
        config = yaml.safe_load((lf / f"train_{finetune_set}.yaml").read_text())
        assert config["finetuning_type"] == "full" and config["stage"] == "sft" and config["do_train"] is True
        assert float(config["learning_rate"]) == 5e-7 and float(config["num_train_epochs"]) == 2
        assert config["dataset"].split(",") == [f"hctqa_{p}_train" for p in parts]
        assert config["eval_dataset"].split(",") == [f"hctqa_{p}_validation" for p in parts]
        assert set(config["dataset"].split(",")) <= set(info)  # names dataset_info.json resolves
    assert training_config("real") == training_config("real")  # fixed text


def test_a_set_without_training_examples_in_each_config_has_no_training_config(exports):
    out, _ = exports
    lf = out / "llamafactory"
    no_real = {"questions_real": _examples("questions_real").iloc[:0], "questions_synthetic": _examples("s")}
    written = write_training_configs(lf, write_finetune_exports(out, no_real, combined=COMBINED_CONFIGS))
    assert [w.path.name for w in written] == ["train_synthetic.yaml"]
    assert not (lf / "train_real.yaml").exists() and not (lf / "train_real_synthetic.yaml").exists()
    # the card's combined config lists only the part with examples in each split
    front = yaml.safe_load((out / "hf" / "README.md").read_text().split("---")[1])
    (questions,) = [c for c in front["configs"] if c["config_name"] == "questions"]
    assert [f["path"] for f in questions["data_files"]] == [[f"questions_synthetic/{s}-00000-of-00001.parquet"]
                                                            for s in ("train", "validation", "test")]


def _run(args, exports_dir, tmp_path, **env):
    cli = tmp_path / "bin" / "llamafactory-cli"
    cli.parent.mkdir(exist_ok=True)
    cli.write_text(f'#!/usr/bin/env bash\nprintf "%s\\n" "$@" > {tmp_path}/args.txt\n')
    cli.chmod(0o755)
    environ = {**os.environ, "PATH": f"{cli.parent}:{os.environ['PATH']}", "EXPORTS_DIR": str(exports_dir), **env}
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=environ, timeout=60)


def test_the_script_runs_llamafactory_on_the_sets_config(exports, tmp_path):
    out, _ = exports
    proc = _run(["real_synthetic", "/models/llama8b", "/tmp/ft-out", "logging_steps=1"], out, tmp_path,
                TEMPLATE="llama3")
    assert proc.returncode == 0, proc.stderr
    args = (tmp_path / "args.txt").read_text().splitlines()
    assert args == ["train", f"{out}/llamafactory/train_real_synthetic.yaml", "model_name_or_path=/models/llama8b",
                    f"dataset_dir={out}/llamafactory", "output_dir=/tmp/ft-out", "template=llama3", "logging_steps=1"]
    proc = _run(["real", "org/Model-8B"], out, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "output_dir=saves/hctqa-real-Model-8B" in (tmp_path / "args.txt").read_text().splitlines()


def test_the_script_refuses_an_unknown_set_or_a_missing_export(exports, tmp_path):
    out, _ = exports
    proc = _run(["both", "m"], out, tmp_path)
    assert proc.returncode == 2 and "unknown fine-tuning set 'both'" in proc.stderr
    proc = _run(["real", "m"], tmp_path / "nowhere", tmp_path)
    assert proc.returncode == 2 and "dbt build --select +tag:finetune" in proc.stderr
    assert not (tmp_path / "args.txt").exists()
