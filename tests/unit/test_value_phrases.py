"""How questions say values (generator_py/questions/value_phrases.py): head nouns from the vocabulary,
coordinated lists with a clear scope, and the seed checks that keep both true for every family."""
import json

import pytest

from generator_py.questions import NLTemplateError, generate_questions, load_domain_nl, parse_template, render_question
from generator_py.questions.query_facts import query_facts
from support.wording_patterns import PATTERNS, count_problems, vocabulary


def spec(filters, **kw):
    s = {"filters": [{"attribute": a, "values": v} for a, v in filters], "value_condition": None,
         "semi_join": None, "select": [{"kind": "value"}], "group_by": [], "order_by": [], "limit": None}
    s.update(kw)
    return s


def _attrs(toy_attrs, **phrases):
    """The toy vocabulary with value phrases: attribute -> (value_phrase, qualifier_phrase)."""
    df = toy_attrs.copy()
    df["value_phrase"] = [phrases.get(a, ("", ""))[0] for a in df["attribute_name"]]
    df["qualifier_phrase"] = [phrases[a][1] if a in phrases else q
                              for a, q in zip(df["attribute_name"], df["qualifier_phrase"])]
    return df


def _load(toy_nl_frames, attrs, replace=None):
    nt, meanings = toy_nl_frames
    if replace:
        nt = nt.copy()
        nt.loc[(nt["template_id"] == 1) & (nt["phrasing"] == 1), "text"] = replace
    return load_domain_nl(nt, meanings, attrs, "toy", "ref")


def _render(nl, text, sp):
    names = set(nl.attribute_codes)
    return render_question(parse_template(text, names, 1, 1), query_facts(sp), nl)


def test_a_value_phrase_puts_the_head_noun_around_the_list(toy_nl_frames, toy_attrs):
    nl = _load(toy_nl_frames, _attrs(toy_attrs, Gender=("{value} drivers", ""), Quarter=("the {value} quarter", "")))
    t = "What is the number of accidents among_$Gender in__$Quarter==of==$Year ?"
    assert _render(nl, t, spec([("Gender", ["Male"])])) == "What is the number of accidents among Male drivers?"
    assert _render(nl, t, spec([("Gender", ["Male", "Female"]), ("Quarter", ["Q1"]), ("Year", ["2020"])])) == \
        "What is the number of accidents among Male or Female drivers in the Q1 quarter of 2020?"
    # the values stay verbatim (every SQL literal shows in the question)
    assert _render(nl, t, spec([("Year", ["2020"])])) == "What is the number of accidents in 2020?"


def test_stacked_values_keep_a_clear_scope(toy_nl_frames, toy_attrs):
    nl = _load(toy_nl_frames, _attrs(toy_attrs))  # Event: qualifier 'of type {value}' (question_fixtures)
    t = "What is the number of__$Severity__$Event__accidents in_$Year ?"
    said = lambda *filters: _render(nl, t, spec(list(filters)))  # noqa: E731
    assert said(("Severity", ["Fatal"]), ("Event", ["Fire"])) == "What is the number of Fatal Fire accidents?"
    assert said(("Event", ["Fire", "Traffic"])) == "What is the number of Fire or Traffic accidents?"
    assert said(("Severity", ["Fatal"]), ("Event", ["Fire", "Traffic"])) == \
        "What is the number of Fatal accidents of type Fire or Traffic?"
    assert said(("Severity", ["Fatal", "Slight"]), ("Event", ["Fire"]), ("Year", ["2020"])) == \
        "What is the number of Fatal or Slight accidents of type Fire in 2020?"
    assert said(("Severity", ["Fatal", "Slight"]), ("Event", ["Fire", "Traffic"])) == \
        "What is the number of Fatal or Slight accidents of type Fire or Traffic?"


def test_stacked_values_inside_a_sub_query(toy_nl_frames, toy_attrs):
    nl = _load(toy_nl_frames, _attrs(toy_attrs))
    sp = spec([("Gender", ["Male"])], select=[{"kind": "attribute", "name": "City"}, {"kind": "value"}],
              semi_join={"attributes": ["City"], "value_condition": {"op": ">", "threshold": 3.0},
                         "filters": [{"attribute": "Severity", "values": ["Fatal"]},
                                     {"attribute": "Event", "values": ["Fire", "Traffic"]}]})
    t = ("What is the number for_$Gender of_$OPPATTR $NESTED for which the number of__$Severity__$Event__accidents "
         "is $OPANDVAL ?")
    out = render_question(parse_template(t, set(nl.attribute_codes), 15, 1), query_facts(sp), nl)
    assert "of Fatal accidents of type Fire or Traffic is greater than 3" in out, out


@pytest.mark.parametrize("column,phrase,problem", [
    ("value_phrase", "victims", "must hold {value} exactly once"),
    ("value_phrase", "{value} or {value}", "must hold {value} exactly once"),
    ("value_phrase", " {value} ", "says nothing but the value"),
    ("value_phrase", "{value} $Year", "only plain words"),
    ("qualifier_phrase", "of_type {value}", "only plain words"),
])
def test_bad_phrases_name_the_row(toy_nl_frames, toy_attrs, column, phrase, problem):
    attrs = toy_attrs.copy()
    attrs.loc[attrs["attribute_name"] == "Gender", column] = phrase
    with pytest.raises(NLTemplateError) as e:
        _load(toy_nl_frames, attrs.fillna(""))
    msg = str(e.value)
    assert "seeds/domain_attributes.csv" in msg and "attribute_name='Gender'" in msg and "line 2" in msg
    assert column in msg and problem in msg


def test_a_template_must_not_repeat_the_head_noun(toy_nl_frames, toy_attrs):
    attrs = _attrs(toy_attrs, Gender=("{value} casualties", ""), Quarter=("the {value} quarter", ""))
    # every toy phrasing says 'involving_$Gender_casualties': the vocabulary now says 'casualties' itself
    with pytest.raises(NLTemplateError, match=r"\$Gender is followed by 'casualties'.*drop it") as e:
        _load(toy_nl_frames, attrs)
    assert "seeds/nl_templates.csv" in str(e.value) and "template_id=1" in str(e.value)
    attrs = _attrs(toy_attrs, Year=("the {value}", ""))
    with pytest.raises(NLTemplateError, match=r"\$Year follows 'the'"):
        _load(toy_nl_frames, attrs, replace="What is the number of__$Severity__$Event__accidents in_the_$Year ?")


def test_a_stack_needs_a_qualifier_after_its_first_attribute(toy_nl_frames, toy_attrs):
    attrs = toy_attrs.copy()
    attrs["qualifier_phrase"] = ""
    with pytest.raises(NLTemplateError, match=r"\$Event stands after \$Severity.*qualifier_phrase") as e:
        _load(toy_nl_frames, attrs)
    assert "seeds/nl_templates.csv" in str(e.value) and "phrasing=1" in str(e.value)
    # levels of one hierarchy are not a stack (only the most specific present one shows)
    nt, meanings = toy_nl_frames
    nt = nt.assign(text=nt["text"].str.replace("$Severity__$Event__", "$City__$Country__", regex=False))
    assert load_domain_nl(nt, meanings, attrs, "toy", "ref").qualifiers == {}


def test_seed_vocabulary_loads_and_every_domain_says_its_values_naturally(seed_frames, toy_tables):
    fr = seed_frames
    vocab = vocabulary(fr["domain_attributes"])
    assert vocab["pollution"]["Area_Type"][1] == "{value} areas"
    assert vocab["graduations"]["Degree_Level"] == ("degree", None)
    rows, stacked = [], 0
    for dom, tn in toy_tables.domains():
        nl = load_domain_nl(fr["nl_templates"], fr["nl_table_meanings"], fr["domain_attributes"], dom, tn)
        for i in range(4):
            for q in generate_questions(toy_tables.table(dom, i, seed=11), nl, 5):
                rows.append((q.question_id, dom, q.question, json.dumps(q.spec)))
                stacked += (" with a " in q.question and " degree" in q.question) or " projects of type " in q.question
    counts, examples, n = count_problems(rows, vocab)
    assert n > 300
    assert all(counts[p] == 0 for p in PATTERNS), (counts, examples)
    assert stacked > 0  # the qualifier rule is reached by the seeds' own templates


def test_the_counter_finds_each_pattern():
    vocab = {"constructions": {"Funding": (None, None), "Project_Type": ("project type", None)},
             "pollution": {"Area_Type": ("area type", "{value} areas"), "Day_Type": ("type of day", None)}}
    rows = [
        ("a", "constructions", "What is the duration of Private or Mixed Shopping mall or Hotel projects?",
         json.dumps(spec([("Funding", ["Private", "Mixed"]), ("Project_Type", ["Shopping mall", "Hotel"])]))),
        ("b", "pollution", "What is the concentration in Urban on Weekdays, for each Area Type?",
         json.dumps(spec([("Area_Type", ["Urban"]), ("Day_Type", ["Weekdays"])]))),
        ("c", "pollution", "What is the concentration in Urban or Rural areas, for each area type? Please, report it.",
         json.dumps(spec([("Area_Type", ["Urban", "Rural"])]))),
        ("d", "constructions", "What is the duration of Private or Mixed projects of type Shopping mall or Hotel?",
         json.dumps(spec([("Funding", ["Private", "Mixed"]), ("Project_Type", ["Shopping mall", "Hotel"])]))),
    ]
    counts, examples, n = count_problems(rows, vocab)
    assert n == 4
    assert counts["coordination without clear scope"] == 1 and counts["value without its head noun"] == 1
    assert counts["attribute said as a column name"] == 1 and counts["Please, report"] == 1
    assert examples["coordination without clear scope"] == [rows[0][2]]


def test_phrases_read_from_a_frame_without_the_columns(toy_nl_frames, toy_attrs):
    # older vocabularies (no value_phrase / qualifier_phrase columns) still load: blank everywhere
    attrs = toy_attrs.drop(columns=["qualifier_phrase"])
    attrs = attrs[attrs["attribute_name"] != "Severity"]
    nt, meanings = toy_nl_frames
    nt = nt.assign(text=nt["text"].str.replace("$Severity__", "", regex=False))
    nl = load_domain_nl(nt, meanings, attrs, "toy", "ref")
    assert nl.value_phrases == {} and nl.qualifiers == {}
