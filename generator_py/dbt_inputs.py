"""Turns configs handed to a dbt Python model (vars rendered as text) into plain Python values."""
from __future__ import annotations

import ast


def parse_config(raw):
    """A var passed through a config arrives rendered as text ("None", "5", "['a', 'b']")."""
    if raw is None or str(raw).strip() in ("", "None", "null"):
        return None
    try:
        return ast.literal_eval(str(raw))
    except (ValueError, SyntaxError):
        return str(raw)


def scale_options(replicas, domains) -> dict:
    replicas, domains = parse_config(replicas), parse_config(domains)
    if isinstance(domains, str):
        domains = [domains]
    return {"replicas": int(replicas) if replicas is not None else None, "domains": list(domains) if domains else None}
