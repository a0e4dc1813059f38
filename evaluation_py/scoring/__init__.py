"""Reading and scoring answers: extraction filters (`extraction`, the final-answer marker in
`final_answer`), the two readings (`strict_reading`; `paper_reading`, the HCT-QA release's rules and its
variants), the scoring modes (`scoring_modes`), the metrics (`metrics`, `text_metrics`), the LLM judge
(`judge`), the JSONL reader (`jsonl`), the responses-file reader (`response_file`) and the ground truth by
id (`ground_truth`), the scores line by line and their means (`line_scores`, plain Python), the score frames
and their means (`scores`) and the command line (`cli`: `python -m evaluation_py.scoring`).

The names below are a lazy front: each is imported from its module on first use."""
from generator_py.core.lazy_front import lazy_front

_EXPORTS = {
    "FLAG_COLUMNS": "line_scores",
    "PAPER_METRICS": "line_scores",
    "SCORE_COLUMNS": "scores",
    "SCORE_QUESTION_COLUMNS": "scores",
    "VERDICT_COLUMNS": "scores",
    "checked_metric_names": "line_scores",
    "dataset_of": "line_scores",
    "default_metrics": "line_scores",
    "extract_answers": "scores",
    "inference_modes": "scores",
    "line_means": "line_scores",
    "mean_scores": "scores",
    "n_values_expected": "scores",
    "n_values_given": "scores",
    "paper_match": "line_scores",
    "score_frame": "scores",
    "score_lists": "line_scores",
    "score_one": "line_scores",
    "scores_table": "scores",
    "summarize": "scores",
    "to_long": "scores",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_front(__name__, _EXPORTS, globals())
