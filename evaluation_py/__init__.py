"""Evaluation of models on table QA benchmarks: prompts, backends, scoring, analyses (no dbt imports)."""
