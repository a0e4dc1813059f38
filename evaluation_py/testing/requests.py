"""Synthetic prediction requests for tests and benchmarks."""
from __future__ import annotations

from typing import Optional

from ..backends.base import PredictionRequest, make_cache_key
from ..backends.params import resolve_params


def make_requests(n: int, *, n_tables: int = 5, prefix: str = "q", model_name: str = "fake",
                  backend: str = "openai", model: str = "fake-model", params: Optional[dict] = None,
                  interleave: bool = True) -> list[PredictionRequest]:
    """`n` requests whose last user message is `f"{prefix}{i}"` (the fake server's key), so the fake
    server answers `"ECHO: {prefix}{i}"`. Tables `t0..t{n_tables-1}` are interleaved (i % n_tables)
    unless `interleave` is false (then consecutive blocks)."""
    p = resolve_params(params)
    out = []
    block = max(1, -(-n // n_tables))
    for i in range(n):
        t = i % n_tables if interleave else i // block
        msgs = ({"role": "system", "content": f"Table t{t}: <table>...</table>"},
                {"role": "user", "content": f"{prefix}{i}"})
        out.append(PredictionRequest(
            cache_key=make_cache_key(model_name, backend, model, p, msgs), question_id=f"{prefix}{i}",
            table_id=f"t{t}", model_name=model_name, backend=backend, model=model, table_format="html",
            messages=msgs, params=p,
        ))
    return out
