"""Fine-tuning sets of the benchmark: the splits by table (`finetune_splits`), the files
(`finetune_sets`: alpaca JSON, Parquet splits, dataset card) and LLaMA-Factory's training configs
(`finetune_training`).

The names below are a lazy front: each is imported from its module on first use."""
from generator_py.core.lazy_front import lazy_front

_EXPORTS = {
    "split_of": "finetune_splits",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_front(__name__, _EXPORTS, globals())
