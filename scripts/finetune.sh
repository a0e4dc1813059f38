#!/usr/bin/env bash
# Fine-tune a model on one of the benchmark's fine-tuning sets with LLaMA-Factory (on a GPU machine).
#
# Usage:
#   scripts/finetune.sh SET MODEL [OUTPUT_DIR] [key=value overrides of the config...]
#
#   SET         real, synthetic or real_synthetic (the export's questions_real, questions_synthetic, both)
#   MODEL       a Hugging Face model id or local folder, e.g. meta-llama/Llama-3.1-8B-Instruct
#   OUTPUT_DIR  [saves/hctqa-SET-<basename of MODEL>]  where the fine-tuned weights go
#
# Runs `llamafactory-cli train` on $EXPORTS_DIR/llamafactory/train_SET.yaml, written by
# `dbt build --select +tag:finetune` (the paper's hyperparameters: full fine-tuning, learning rate 5e-7,
# 2 epochs, on the set's train split). Settings (environment variables, defaults in brackets):
#   EXPORTS_DIR      [exports]           the build's exports folder (var exports_dir)
#   TEMPLATE         [the config's: llama3]  LLaMA-Factory's chat template for MODEL
#   LLAMAFACTORY_CLI [llamafactory-cli]  the LLaMA-Factory command (pip install llamafactory)
# Then serve the result (scripts/serve_vllm.sh OUTPUT_DIR) and evaluate it on the test split's tables,
# beside its base, e.g.
#   {name: llama8b-real, backend: openai, base_url: ..., model: ..., splits: [test],
#    base_model: llama8b, finetune_set: real}
set -euo pipefail

if [[ $# -lt 2 || "$1" == "-h" || "$1" == "--help" ]]; then
    sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
SET="$1"
MODEL="$2"
shift 2
OUTPUT_DIR="saves/hctqa-$SET-$(basename "$MODEL")"
if [[ $# -gt 0 && "$1" != *=* ]]; then
    OUTPUT_DIR="$1"
    shift
fi
EXPORTS_DIR="${EXPORTS_DIR:-exports}"
DATASET_DIR="$EXPORTS_DIR/llamafactory"
CONFIG="$DATASET_DIR/train_$SET.yaml"
case "$SET" in
    real|synthetic|real_synthetic) ;;
    *) echo "finetune.sh: unknown fine-tuning set '$SET'; sets are real, synthetic, real_synthetic" >&2; exit 2 ;;
esac
if [[ ! -f "$CONFIG" ]]; then
    echo "finetune.sh: $CONFIG not found; write the fine-tuning sets first: dbt build --select +tag:finetune" \
         "(EXPORTS_DIR is the build's var exports_dir)" >&2
    exit 2
fi
CLI="${LLAMAFACTORY_CLI:-llamafactory-cli}"
if ! command -v "$CLI" >/dev/null 2>&1; then
    echo "finetune.sh: '$CLI' not found; install LLaMA-Factory (pip install llamafactory) or set LLAMAFACTORY_CLI" >&2
    exit 2
fi
ARGS=("model_name_or_path=$MODEL" "dataset_dir=$DATASET_DIR" "output_dir=$OUTPUT_DIR")
if [[ -n "${TEMPLATE:-}" ]]; then
    ARGS+=("template=$TEMPLATE")
fi
echo "finetune.sh: $CLI train $CONFIG ${ARGS[*]} $*" >&2
exec "$CLI" train "$CONFIG" "${ARGS[@]}" "$@"
