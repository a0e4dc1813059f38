"""Evaluation of models on the TabIS-style two-option items of benchmark_choice_items.

- `spec`: the `choice_items` key of an `eval_models` entry (which items a model answers);
- `prompt`: the one-shot prompt (a worked example from another table) in both option orders;
- `requests`: the requests of a model, and the lookup the oracle answers them from;
- `letters`: the two scorings, the letter read from the text and the first token's A-vs-B probabilities;
- `predictions`: per item x model x order, both scorings (eval_choice_predictions);
- `analysis`: accuracy summaries, the robustness gap, probe positions, the property regression;
- `figures`: the report's choice figures and tables;

What the dbt model (models/choice/eval_choice_predictions.py) reads: evaluation_py.dbt_glue.choice_inputs.
"""
