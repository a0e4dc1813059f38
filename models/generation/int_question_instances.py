"""Question instances: every question family of the build's suites (var question_suites) drawn on every table,
its SQL text and NL question (with var paraphrase_sets, also its text in every other phrasing of its template),
made by the workers a chunk of tables at a time (a large build's chunks go to DuckDB as they come: `landed`),
sorted by question_id."""
import pandas as pd

from generator_py.dbt_glue.relations import frame, landed, whole_groups_apart
from generator_py.dbt_glue.vars import paraphrases_var, question_suites_var, seed_var, variety_var
from generator_py.questions.instances import question_parts, relational_table_stream, template_measures
from generator_py.questions.families import families_for_suites
from generator_py.questions.domain_nl import PARAPHRASE_SEED_FILE, tag_seed_rows
from generator_py.questions.families.naming import NAMEABLE_ROLES
from generator_py.questions.template_syntax import BEYOND_SEED_FILE, SEED_FILE, TREB_SEED_FILE


def model(dbt, session):
    dbt.config(materialized="table")
    families = families_for_suites(question_suites_var(dbt.config.get("question_suites")))

    def table_parts(relation, order="table_id"):  # some hundred tables at a time, in table id order
        return whole_groups_apart(session, relation, "table_id", order, 50_000)

    # each table's shown aggregates (sorted per table when read: the order DuckDB returns them in is no part of
    # the seed's outcome), and the header cells a header naming question may blank, read as the tables are
    aggregates = table_parts(dbt.ref("int_hct_cells").filter("role = 'aggregate'")
                             .project("table_id, row_group, col_group, value").distinct())
    headers = None
    if any(f.reads_header_cells for f in families):
        roles = ", ".join(f"'{r}'" for r in NAMEABLE_ROLES + ("corner", "corner_split", "row_attribute_name", "indent"))
        headers = table_parts(dbt.ref("int_hct_cells").filter(f"role in ({roles})")
                              .project("table_id, grid_row, grid_col, role, text"))
    treb = "treb" in {f.suite for f in families}
    # a build with TReB's families also reads what its families know beyond the table: groupings and units
    knowledge = (frame(dbt.ref("stg_value_groupings")), frame(dbt.ref("stg_measure_units"))) if treb else (None, None)
    measures = template_measures(frame(dbt.ref("stg_domain_attributes")), frame(dbt.ref("stg_domain_values")),
                                 frame(dbt.ref("stg_domain_value_ranges")), frame(dbt.ref("stg_table_templates")),
                                 *knowledge)
    instances = frame(dbt.ref("int_table_instances"))
    # the relational rows some hundred tables at a time: the workers start on the first ones at once
    tables = relational_table_stream(instances, table_parts(dbt.ref("int_relational_rows"), "table_id, rel_row"),
                                     aggregates, headers)
    # each suite beyond hctqa has its families' phrasings in a seed of its own, read when the build asks them
    suites = {f.suite for f in families}
    nl_templates = frame(dbt.ref("stg_nl_templates"))
    seeds = [tag_seed_rows(nl_templates, SEED_FILE)]
    if "treb" in suites:
        seeds.append(tag_seed_rows(frame(dbt.ref("stg_nl_templates_treb")), TREB_SEED_FILE))
    if "beyond" in suites:
        seeds.append(tag_seed_rows(frame(dbt.ref("stg_nl_templates_beyond")), BEYOND_SEED_FILE))
    if len(seeds) > 1:
        nl_templates = pd.concat(seeds, ignore_index=True)
    paraphrases = None
    if paraphrases_var(dbt.config.get("paraphrase_sets")):  # the paraphrase-only phrasings (seed nl_paraphrases)
        paraphrases = tag_seed_rows(frame(dbt.ref("stg_nl_paraphrases")), PARAPHRASE_SEED_FILE)
    parts = question_parts(tables, nl_templates, frame(dbt.ref("stg_nl_table_meanings")),
                           frame(dbt.ref("stg_domain_attributes")), seed_var(dbt.config.get("seed")),
                           variety=variety_var(dbt.config.get("question_variety")), measures=measures,
                           families=families, paraphrases=paraphrases,
                           table_keys=list(zip(instances["domain"].tolist(), instances["template_name"].tolist())))
    return landed(session, parts, "int_question_instances", order_by="question_id")
