"""LLaMA-Factory training configs, one per fine-tuning set (finetune_sets.FINETUNE_SETS), with the HCT-QA
paper's hyperparameters: full fine-tuning, learning rate 5e-7, 2 epochs, on the set's train split (its
validation split evaluated after each epoch). Written beside dataset_info.json as `train_<set>.yaml`;
scripts/finetune.sh runs one, giving the model, the dataset folder and the output folder.

The paper fine-tuned Llama-3.1-8B-Instruct: the configs name it and its chat template; the script's MODEL
and TEMPLATE override them. Fixed text, no timestamps: the same sets give the same bytes. No dbt imports.
"""
from __future__ import annotations

from pathlib import Path

from generator_py.exports.parquet import replace_if_changed

from .finetune_sets import FINETUNE_SETS, WrittenFile, set_datasets

# The paper's: full fine-tuning, learning rate 5.0e-07, 2 epochs, of Llama-3.1-8B-Instruct.
PAPER_HYPERPARAMETERS = {"finetuning_type": "full", "learning_rate": "5.0e-7", "num_train_epochs": "2.0"}
PAPER_MODEL = "meta-llama/Llama-3.1-8B-Instruct"
PAPER_TEMPLATE = "llama3"
# Not stated in the paper: LLaMA-Factory's usual full-SFT settings, long enough for an HTML table.
OTHER_SETTINGS = {"cutoff_len": "8192", "per_device_train_batch_size": "1", "gradient_accumulation_steps": "8",
                  "lr_scheduler_type": "cosine", "warmup_ratio": "0.1", "bf16": "true"}


def config_name(finetune_set: str) -> str:
    return f"train_{finetune_set}.yaml"


def training_config(finetune_set: str) -> str:
    """The YAML text of one set's training run (LLaMA-Factory's `llamafactory-cli train` format)."""
    h, o = PAPER_HYPERPARAMETERS, OTHER_SETTINGS
    lines = [
        f"# HCT-QA fine-tuning set `{finetune_set}`: {' + '.join(FINETUNE_SETS[finetune_set])}.",
        "# Run: scripts/finetune.sh " + finetune_set + " MODEL (sets model_name_or_path, dataset_dir, output_dir).",
        "### model",
        f"model_name_or_path: {PAPER_MODEL}",
        "### method",
        "stage: sft",
        "do_train: true",
        f"finetuning_type: {h['finetuning_type']}",
        "### dataset",
        "dataset_dir: .",
        f"dataset: {set_datasets(finetune_set, 'train')}",
        f"eval_dataset: {set_datasets(finetune_set, 'validation')}",
        f"template: {PAPER_TEMPLATE}",
        f"cutoff_len: {o['cutoff_len']}",
        "overwrite_cache: true",
        "preprocessing_num_workers: 8",
        "### output",
        f"output_dir: saves/hctqa-{finetune_set}",
        "logging_steps: 10",
        "save_strategy: epoch",
        "plot_loss: true",
        "overwrite_output_dir: true",
        "### train",
        f"per_device_train_batch_size: {o['per_device_train_batch_size']}",
        f"gradient_accumulation_steps: {o['gradient_accumulation_steps']}",
        f"learning_rate: {h['learning_rate']}",
        f"num_train_epochs: {h['num_train_epochs']}",
        f"lr_scheduler_type: {o['lr_scheduler_type']}",
        f"warmup_ratio: {o['warmup_ratio']}",
        f"bf16: {o['bf16']}",
        "ddp_timeout: 180000000",
        "### eval",
        "per_device_eval_batch_size: 1",
        "eval_strategy: epoch",
    ]
    return "\n".join(lines) + "\n"


def write_training_configs(llamafactory_dir, written: list[WrittenFile]) -> list[WrittenFile]:
    """`train_<set>.yaml` under `llamafactory_dir` for every set each of whose configs has training examples
    (`written`: the export's files; a build without the release has no real questions, so no real set); a
    set's config of an earlier export that no longer qualifies is removed."""
    folder = Path(llamafactory_dir)
    trained = {w.config for w in written if w.file_format == "parquet" and w.split == "train" and w.n_examples}
    out = []
    for finetune_set, parts in FINETUNE_SETS.items():
        path = folder / config_name(finetune_set)
        if all(p in trained for p in parts):
            replace_if_changed(training_config(finetune_set).encode("utf-8"), path)
            out.append(WrittenFile(path, None, None, "training_config", None, None))
        elif path.exists():
            path.unlink()
    return out
