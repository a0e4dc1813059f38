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
    counted = ci_db.sql("select subset, distractor_strategy, content_variant, n_items "
                        "from benchmark_choice_item_counts order by all").fetchall()
    direct = ci_db.sql("select subset, distractor_strategy, content_variant, count(*) from benchmark_choice_items "
                       "group by all order by all").fetchall()
    assert counted == direct


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
