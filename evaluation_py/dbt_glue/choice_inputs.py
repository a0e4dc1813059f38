"""What the choice dbt models read (no dbt imports): the items' and tables' columns the requests use."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from generator_py.dbt_glue.vars import parse_config, seed_var

from ..configuration.model_specs import parse_eval_models
from ..choice.predictions import ITEM_CARRIED, choice_predictions, with_earlier_builds
from .evaluation_inputs import remove_var, scope_var
from ..choice.requests import ITEM_COLUMNS, SELECTION_COLUMNS

ITEM_INPUT_COLUMNS = tuple(dict.fromkeys([*ITEM_COLUMNS, *ITEM_CARRIED]))
# Read for every item: what draws the samples and the worked examples, and what the prediction rows carry.
ITEM_SELECTION_COLUMNS = tuple(dict.fromkeys([*SELECTION_COLUMNS, *ITEM_CARRIED]))


def _columns(relation, columns) -> pd.DataFrame:
    if isinstance(relation, pd.DataFrame):
        return relation[list(columns)]
    return relation.project(", ".join(f'"{c}"' for c in columns)).df()


def choice_predictions_from_relations(items, tables, eval_models_raw, seed_raw, store: Path, fingerprint: str,
                                      scope_raw=None, remove_raw=None) -> pd.DataFrame:
    """eval_choice_predictions: this build's answers and, in the accumulate scope (var eval_scope), the
    rows of the models asked the items on this fingerprint by earlier builds."""
    scope, remove = scope_var(scope_raw), remove_var(remove_raw)
    specs = parse_eval_models(parse_config(eval_models_raw))
    this_build = _this_build(items, tables, specs, seed_raw, store)
    return with_earlier_builds(this_build, specs, fingerprint, store, accumulate=scope == "accumulate", remove=remove)


def _this_build(items, tables, specs, seed_raw, store: Path) -> pd.DataFrame:
    if not any(s.choice_items is not None for s in specs):  # nothing to ask: read no table
        return choice_predictions([], pd.DataFrame(columns=list(ITEM_INPUT_COLUMNS)), None, 0, store)
    if isinstance(items, pd.DataFrame):
        return choice_predictions(specs, _columns(items, ITEM_INPUT_COLUMNS), _columns(tables, ("table_id", "csv")),
                                  seed_var(seed_raw), store)

    def details(item_ids: list[str]) -> pd.DataFrame:
        # the question, options and table text of the items asked (and their examples), not of all items
        wanted = pd.DataFrame({"item_id": item_ids})  # noqa: F841  (read by DuckDB below)
        rows = items.project(", ".join(f'"{c}"' for c in ITEM_COLUMNS))
        return rows.query("items", "select * from items semi join wanted using (item_id)").df()

    def tables_of(table_ids: list[str]) -> pd.DataFrame:
        # the CSV of the tables the asked items show, not of every table
        wanted = pd.DataFrame({"table_id": table_ids})  # noqa: F841  (read by DuckDB below)
        return tables.project("table_id, csv").query("tables", "select * from tables semi join wanted using (table_id)").df()

    return choice_predictions(specs, _columns(items, ITEM_SELECTION_COLUMNS), tables_of, seed_var(seed_raw), store,
                              details=details)
