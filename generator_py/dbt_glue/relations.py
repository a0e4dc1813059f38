"""Reading a DuckDB relation (what `dbt.ref` gives a Python model) as an Arrow table: the columns reach the
libraries without a pandas frame (a frame builds a Python object per text cell). No dbt imports."""
from __future__ import annotations

import pyarrow as pa


def arrow_table(relation) -> pa.Table:
    """The relation's rows as one Arrow table (`to_arrow_table` from duckdb 1.4, `fetch_arrow_table` before)."""
    read = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    return read()
