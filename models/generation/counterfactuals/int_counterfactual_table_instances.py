"""The toggles of the counterfactual sets: the candidates whose flags differ from their base's in their property
and in nothing else, and that show no sum or average equal to one of their data cells
(generator_py.counterfactuals.pairs), as int_table_instances rows with the set, the property and whether the
toggle has it (its base then has not)."""
import logging

from generator_py.counterfactuals import colliding_layouts, kept_toggles
from generator_py.dbt_glue.relations import frame

log = logging.getLogger(__name__)


def model(dbt, session):
    dbt.config(materialized="table")
    candidates = frame(dbt.ref("int_counterfactual_candidates"))
    session.register("counterfactual_bases", candidates[["original_table_id"]].drop_duplicates())
    bases = frame(dbt.ref("int_table_instances").filter(
        "table_id in (select original_table_id from counterfactual_bases)").project("table_id, borders"))
    base_flags = frame(dbt.ref("int_hct_properties").filter(
        "table_id in (select original_table_id from counterfactual_bases)"))
    cells = frame(dbt.ref("int_counterfactual_hct_cells").filter("role in ('data', 'aggregate')").project(
        "table_id, role, text"))
    kept, rejected = kept_toggles(candidates, frame(dbt.ref("int_counterfactual_hct_properties")), bases, base_flags,
                                  colliding_layouts(cells, candidates))
    for r in rejected:
        log.info("layout counterfactual %s left out: %s", r.table_id, r.reason)
    return kept
