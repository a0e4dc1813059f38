"""Synthetic human-centric table (HCT) and question generator (no dbt imports)."""
