"""The HCT-QA release's format, in one place (docs/contracts.md, "Release format").

- `properties`: the release's table / question property names, our columns, reading their values;
- `gt`: the `gt` answer string, written and read;
- `qaps_read`: reading the release's `realWorld_HCT_qaps.json`;
- `qaps_write`: writing our benchmark in that layout (`hctqa_qaps.json`);
- `table_csv`: a table's CSV in the release's layout (index row and column), read and written;
- `relational_csv`: the release's relational tables (`*_DB.csv`) as frames for the ground truth.

Plain Python, no dbt imports; `evaluation_py` reads the release through these modules.
"""
