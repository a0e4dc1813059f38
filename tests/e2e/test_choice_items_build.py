"""benchmark_choice_items in the CI-scale build: every subset, strategy and content variant, counts that agree."""
from __future__ import annotations

SUBSETS = {"b_tis", "su_tis", "m_tis", "tsu_pcl", "tsu_prl", "tsu_pll", "tsu_rcl", "tsu_rrl", "tsu_rll"}
STRATEGIES = {"neighbour_cell", "aggregate_for_data", "sibling_condition", "wrong_function", "numeric_perturbation"}


def test_every_subset_strategy_and_variant_is_built(ci_db):
    subsets = {r[0] for r in ci_db.sql("select distinct subset from benchmark_choice_items").fetchall()}
    assert subsets == SUBSETS
    for subset in ("b_tis", "su_tis", "m_tis"):
        found = {r[0] for r in ci_db.sql("select distinct distractor_strategy from benchmark_choice_items "
                                         "where subset = ?", params=[subset]).fetchall()}
        assert found == STRATEGIES, subset
    variants = ci_db.sql("select subset, count(distinct content_variant) from benchmark_choice_items "
                         "where subset like 'tsu_%' group by subset").fetchall()
    assert {n for _, n in variants} == {3}


def test_counts_relation_agrees_with_the_items(ci_db):
    counted = ci_db.sql("select subset, distractor_strategy, content_variant, option_form, n_items "
                        "from benchmark_choice_item_counts order by all").fetchall()
    direct = ci_db.sql("select subset, distractor_strategy, content_variant, option_form, count(*) "
                       "from benchmark_choice_items group by all order by all").fetchall()
    assert counted == direct
    forms = {r[0] for r in counted if r[3] == "statement"}
    assert forms == {"b_tis"}  # the statement form: the lookups' b_tis items


def test_correct_options_are_balanced_and_m_tis_places_both_ways(ci_db):
    share_a = ci_db.sql("select avg((correct_option = 'A')::int) from benchmark_choice_items").fetchall()[0][0]
    assert 0.45 < share_a < 0.55
    places = {r[0] for r in ci_db.sql("select distinct other_table_position from benchmark_choice_items "
                                      "where subset = 'm_tis'").fetchall()}
    assert places == {"before", "after"}


def test_letters_and_numbers_variants_carry_their_table(ci_db):
    bad = ci_db.sql("""
        select item_id from benchmark_choice_items
        where subset like 'tsu_%' and ((content_variant = 'original') != (table_csv is null)
           or (content_variant = 'letters' and regexp_matches(table_csv, '[0-9A-Z]'))
           or (content_variant = 'numbers' and regexp_matches(table_csv, '[a-zA-Z]')))
    """).fetchall()
    assert bad == []


def test_real_table_probes_read_the_grid_at_the_positions_of_their_csv(release_build):
    """Probes on the release's tables: the grid they read (int_table_grid, merged cells as spans) has the
    positions and texts of benchmark_tables.csv, and each option is the CSV's content at its position."""
    import duckdb
    import pandas as pd

    from generator_py.choice_items.choice_table import parse_csv_grid, text_grids
    from generator_py.choice_items.probes import GridView

    con = duckdb.connect(str(release_build / "hctqa.duckdb"), read_only=True)
    try:
        csvs = dict(con.execute("select table_id, csv from main.benchmark_tables where source = 'real'").fetchall())
        cells = con.execute("select table_id, grid_row, grid_col, rowspan, colspan, text from intermediate.int_table_grid "
                            "where source = 'real'").df()
        items = con.execute("""select i.* from main.benchmark_choice_items as i
                               join main.benchmark_tables as t using (table_id)
                               where t.source = 'real' order by item_id""").df()
    finally:
        con.close()
    assert csvs and (cells["rowspan"].gt(1) | cells["colspan"].gt(1)).any()  # the sample has merged cells
    grids = text_grids(cells)
    assert sorted(grids) == sorted(csvs)
    for table_id, text in csvs.items():
        assert grids[table_id] == parse_csv_grid(text, table_id), table_id
    merged = set(cells.loc[cells["rowspan"].gt(1) | cells["colspan"].gt(1), "table_id"])
    assert merged & set(items["table_id"]), "no probe on a real table with merged cells"
    assert set(items["subset"]) == {"tsu_pcl", "tsu_prl", "tsu_pll", "tsu_rcl", "tsu_rrl", "tsu_rll"}
    views = {t: GridView(parse_csv_grid(text, t)) for t, text in csvs.items()}

    def position(row, prefix):
        r, c = row[f"{prefix}_row"], row[f"{prefix}_col"]
        return (None if pd.isna(r) else int(r), None if pd.isna(c) else int(c))

    for row in items[items["content_variant"] == "original"].to_dict("records"):
        right, wrong = ((row["option_a"], row["option_b"]) if row["correct_option"] == "A"
                        else (row["option_b"], row["option_a"]))
        view = views[row["table_id"]]
        assert right == view.content(position(row, "target")), row["item_id"]
        assert wrong == view.content(position(row, "wrong")), row["item_id"]


def test_composition_counts_the_choice_items_per_subset_and_strategy(ci_db):
    composed = ci_db.sql("select facet, key, n_tables, n_questions from analysis_benchmark_composition "
                         "where facet in ('choice_subset', 'choice_strategy') order by all").fetchall()
    direct = ci_db.sql("""
        select 'choice_subset', subset, count(distinct table_id), count(*) from benchmark_choice_items group by all
        union all
        select 'choice_strategy', subset || ': ' || distractor_strategy, count(distinct table_id), count(*)
        from benchmark_choice_items group by all
        order by all""").fetchall()
    assert composed == direct and len(composed) > 9
