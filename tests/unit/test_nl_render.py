import pandas as pd
import pytest

from generator_py.questions import NLTemplateError, load_domain_nl, parse_template, render_question
from generator_py.questions.query_facts import query_facts
from generator_py.questions.word_lists import and_list, or_list


def spec(filters, select=None, **kw):
    s = {"filters": [{"attribute": a, "values": v} for a, v in filters], "value_condition": None,
         "semi_join": None, "select": select or [{"kind": "value"}], "group_by": [], "order_by": [], "limit": None}
    s.update(kw)
    return s


@pytest.fixture
def render(toy_nl, toy_attrs):
    names = set(toy_attrs["attribute_name"])

    def render(text, sp, tid=1):
        return render_question(parse_template(text, names, tid, 1), query_facts(sp), toy_nl)
    return render


def test_lists():
    assert or_list(["Milk", "Tea", "Coffee"]) == "Milk, Tea, or Coffee"
    assert or_list(["2017", "2018"]) == "2017 or 2018"
    assert and_list(["A", "B"]) == "A and B"


def test_links_and_nesting(render):
    t = "What is the number of_$Event_accidents in__$City__$Country in__$Quarter==of==$Year ?"
    assert render(t, spec([("City", ["Toronto"]), ("Year", ["2020"])])) == "What is the number in Toronto in 2020?"
    out = render(t, spec([("City", ["Toronto"]), ("Quarter", ["Q1"]), ("Year", ["2020"])]))
    assert out == "What is the number in Toronto in Q1 of 2020?"
    out = render(t, spec([("Country", ["Canada"]), ("Quarter", ["Q1"]), ("Event", ["Fire", "Traffic"])]))
    assert out == "What is the number of Fire or Traffic accidents in Canada in Q1?"


def test_simplify_nested_shows_most_specific(render):
    t = "What is the number in__$City__$Country ?"
    assert render(t, spec([("Country", ["Canada"]), ("City", ["Toronto"])])) == "What is the number in Toronto?"


def test_keep_word_and_plural(render):
    t = "What is/are the number/numbers of_((accidents)) of__$Severity__$Event__accidents ?"
    assert render(t, spec([])) == "What is the number of accidents?"
    assert render(t, spec([("Event", ["Fire"])])) == "What is the number of Fire accidents?"
    assert render(t, spec([("Event", ["Fire", "Traffic"])])) == "What are the numbers of Fire or Traffic accidents?"


def test_reserved_words(render):
    sel = [{"kind": "attribute", "name": "Event"}, {"kind": "aggregate", "function": "min"},
           {"kind": "aggregate", "function": "max"}]
    sp = spec([("Gender", ["Male", "Female"])], sel, group_by=["Event"],
              order_by=[{"kind": "attribute", "name": "Event", "direction": "asc"}])
    out = render("What is/are the $EXPR number/numbers $GROUPBY , of_$Gender_casualties ?", sp, 8)
    assert out == ("What are the minimum and maximum numbers for each Event, of Male or Female casualties? "
                   "Please, report the corresponding Event.")
    sp = spec([("Gender", ["Male"])], limit=3, order_by=[{"kind": "value", "name": "Value", "direction": "desc"}])
    assert render("What are the top/bottom_$TOPK numbers for_$Gender ?", sp, 12) == "What are the top 3 numbers for Male?"
    sp["order_by"][0]["direction"] = "asc"
    sp["limit"] = None
    assert render("Sort them for_$Gender by $ORDERBYDESC_decreasing/increasing values .", sp, 13) == \
        "Sort them for Male by increasing values."
    sp = spec([("Gender", ["Male"])], [{"kind": "attribute", "name": "Event"}],
              value_condition={"op": "<", "threshold": 51.75})
    assert render("What is/are the $OPPATTR for which the number for_$Gender is $OPANDVAL ?", sp, 14) == \
        "What is the Event for which the number for Male is lower than 51.75?"


def test_missing_placeholder_for_condition_raises(render):
    with pytest.raises(NLTemplateError, match="Severity"):
        render("What is the number of_$Event ?", spec([("Severity", ["Fatal"])]))


@pytest.fixture
def load_with(toy_attrs, toy_nl_texts):
    """load_domain_nl of the toy domain's templates with some rows replaced ((template_id, phrasing) -> row)."""
    def load_with(override):
        rows = [("toy", "*", tid, p + 1, text) for tid, texts in sorted(toy_nl_texts.items())
                for p, text in enumerate(texts)]
        rows = [override.get((r[2], r[3]), r) for r in rows]
        df = pd.DataFrame(rows, columns=["domain", "template_name", "template_id", "phrasing", "text"])
        meanings = pd.DataFrame([("toy", "*", "number", "Please, report the corresponding $REPORTATTR .")],
                                columns=["domain", "template_name", "value_meaning", "report_sentence"])
        return load_domain_nl(df, meanings, toy_attrs, "toy", "x")
    return load_with


@pytest.mark.parametrize("text,problem", [
    ("What is the number of_$Colour ?", "not an attribute"),
    ("What is the $BOGUS number of_$Event ?", "unknown reserved word"),
    ("What is the number of_$Event ?", "needs $EXPR"),
    ("$Event is what ?", "must not start"),
])
def test_validation_errors(load_with, text, problem):
    with pytest.raises(NLTemplateError) as e:
        load_with({(4, 1): ("toy", "*", 4, 1, text)})
    msg = str(e.value)
    assert "seeds/nl_templates.csv" in msg and problem in msg and "template_id=4" in msg and "phrasing=1" in msg
    assert "line" in msg


def test_required_reserved_per_template(load_with):
    for tid, text in [(8, "What is the $EXPR number ?"), (12, "What are the numbers ?"),
                      (13, "What are the numbers ?"), (14, "Which $OPPATTR ?")]:
        with pytest.raises(NLTemplateError, match=f"template {tid} needs"):
            load_with({(tid, 1): ("toy", "*", tid, 1, text)})
    with pytest.raises(NLTemplateError, match="not allowed in template 1"):
        load_with({(1, 1): ("toy", "*", 1, 1, "What are the top_$TOPK numbers ?")})


def test_nl_rows_must_belong_to_a_family_of_the_build(load_with):
    with pytest.raises(NLTemplateError, match=r"template_id 16 is the NL of no question family of the build") as e:
        load_with({(1, 1): ("toy", "*", 16, 1, "What is the number of_$Event ?")})
    assert "seeds/nl_templates.csv" in str(e.value) and "phrasing=1" in str(e.value)


def test_seed_templates_complete(seed_frames):
    fr = seed_frames
    nt = fr["nl_templates"]
    for dom, tn in fr["table_templates"][["domain", "template_name"]].itertuples(index=False):
        nl = load_domain_nl(nt, fr["nl_table_meanings"], fr["domain_attributes"], dom, tn)
        for tid in range(1, 16):
            assert len(nl.phrasings(tid)) >= 2, (dom, tid)
    words = " ".join(nt["text"]).lower()
    for w in ("highest", "lowest", "most", "least", "largest", "smallest"):
        assert w in words


def test_requirements_are_checked_only_when_given(toy_attrs):
    from generator_py.questions import NLRequirements

    names = set(toy_attrs["attribute_name"])
    text = "What are the top_$TOPK numbers ?"
    assert parse_template(text, names, 1, 1).reserved == {"TOPK"}  # syntax only
    with pytest.raises(NLTemplateError, match=r"\$TOPK is not allowed in template 1"):
        parse_template(text, names, 1, 1, requirements=NLRequirements(1))
    req = NLRequirements(12, (("TOPK",),), frozenset({"TOPK"}))
    assert parse_template(text, names, 12, 1, requirements=req).reserved == {"TOPK"}


def test_render_plans_are_kept_by_their_domain_nl(toy_nl_frames, toy_attrs):
    a = load_domain_nl(*toy_nl_frames, toy_attrs, "toy", "ref")
    b = load_domain_nl(*toy_nl_frames, toy_attrs, "toy", "ref")
    tpl = a.phrasings(1)[0]
    sp = spec([("Event", ["Fire"]), ("Year", ["2020"])])
    first = render_question(tpl, query_facts(sp), a)
    assert first == render_question(tpl, query_facts(sp), a)
    assert list(a.render_plans) == [(1, tpl.phrasing, tpl.text)]
    assert b.render_plans == {}  # no cache shared between objects (nor keyed by id())
    assert render_question(tpl, query_facts(sp), b) == first and len(b.render_plans) == 1
    assert a == b  # the cache takes no part in comparing two DomainNL


def test_question_rng_is_the_sha256_of_seed_and_table_id():
    import hashlib

    from generator_py.core.rng import stable_int

    expected = int.from_bytes(hashlib.sha256(b"42|syn--x--y--v0001--r1").digest()[:8], "big")
    assert stable_int(42, "syn--x--y--v0001--r1") == expected
