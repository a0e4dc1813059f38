import sqlglot
from sqlglot import exp

from generator_py.core.formatting import format_number
from generator_py.questions.instances import COLUMNS, PlainRelationalTable, _compact, _uncompact, generate_all
from generator_py.questions import generate_questions, parse_template, render_question
from generator_py.questions.query_facts import query_facts, sql_literals


def _spec(filters, **kw):
    s = {"filters": [{"attribute": a, "values": v} for a, v in filters], "value_condition": None,
         "semi_join": None, "select": [{"kind": "attribute", "name": "Event"}], "group_by": [], "order_by": [],
         "limit": None}
    s.update(kw)
    return s


def test_negative_threshold_is_rendered_with_its_sign(toy_nl, toy_attrs):
    sp = _spec([("Year", ["2020"])], value_condition={"op": "<", "threshold": -5.5})
    tpl = parse_template("What is/are the $OPPATTR for which the number in_$Year is $OPANDVAL ?",
                         set(toy_attrs["attribute_name"]), 14, 1)
    text = render_question(tpl, query_facts(sp), toy_nl)
    assert "lower than -5.5" in text
    assert sql_literals(sp) == ["2020", "-5.5"]
    for lit in sql_literals(sp):
        assert lit in text


def test_literals_in_sql_order_with_subquery_and_limit():
    sp = _spec([("Event", ["Fire", "Traffic"])], limit=3,
               order_by=[{"kind": "value", "name": "Value", "direction": "desc"}],
               select=[{"kind": "value"}])
    assert query_facts(sp).literals == ["Fire", "Traffic", "3"]
    sp = _spec([("Gender", ["Male"])], select=[{"kind": "attribute", "name": "Event"}, {"kind": "value"}],
               semi_join={"attributes": ["Event"], "filters": [{"attribute": "Gender", "values": ["Female"]}],
                          "value_condition": {"op": ">", "threshold": 12.5}})
    assert sql_literals(sp) == ["Male", "Female", "12.5"]


def _parsed_literals(sql):
    tree = sqlglot.parse_one(sql, read="duckdb")
    out = []
    for node in tree.find(exp.Where).walk() if tree.find(exp.Where) else []:
        if isinstance(node, exp.Literal) and not isinstance(node.parent, exp.Neg):
            out.append(node.this if node.is_string else format_number(float(node.this)))
        elif isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
            out.append(format_number(-float(node.this.this)))
    if tree.args.get("limit") is not None:
        out.append(tree.args["limit"].expression.this)
    return out


def test_generated_questions_carry_their_literals(reference_tables, toy_nl):
    for t in reference_tables:
        for q in generate_questions(t, toy_nl, 7):
            assert q.sql_literals, q.sql
            assert sorted(q.sql_literals) == sorted(_parsed_literals(q.sql)), (q.sql, q.sql_literals)
            for lit in q.sql_literals:
                assert lit in q.question, (lit, q.question)


def test_plain_tables_and_generate_all_rows(reference_tables, toy_nl):
    ts = reference_tables
    plain = [_uncompact(_compact(t)) for t in ts]
    assert all(isinstance(p, PlainRelationalTable) for p in plain)
    assert list(plain[0].frame.columns) == list(ts[0].frame.columns)
    for t, p in zip(ts, plain):
        a = [(q.sql, q.question, q.sql_literals) for q in generate_questions(t, toy_nl, 3)]
        b = [(q.sql, q.question, q.sql_literals) for q in generate_questions(p, toy_nl, 3)]
        assert a == b


def test_generate_all_same_rows_for_any_worker_count(reference_tables, toy_nl_frames, toy_attrs):
    nl, meanings = toy_nl_frames
    base = [_compact(t) for t in reference_tables]
    many = [_uncompact((f"{c[0]}--x{i:03d}",) + c[1:]) for i in range(55) for c in base]  # > 200: the pool path
    one = generate_all(many, nl, meanings, toy_attrs, 5, workers=1)
    two = generate_all(many, nl, meanings, toy_attrs, 5, workers=2)
    assert one.column_names == list(COLUMNS)
    assert one.equals(two)
    assert one.num_rows > 200 * 13


def test_generate_all_same_table_for_any_batch_size(reference_tables, toy_nl_frames, toy_attrs, monkeypatch):
    """Rows become Arrow a batch at a time; the types and rows do not depend on where the batches are cut
    (a column NULL in one batch takes the type the others give it)."""
    from generator_py.questions import instances
    nl, meanings = toy_nl_frames
    whole = generate_all(reference_tables, nl, meanings, toy_attrs, 5, workers=1)
    monkeypatch.setattr(instances._ArrowRows, "BATCH", 3)
    cut = generate_all(reference_tables, nl, meanings, toy_attrs, 5, workers=1)
    assert whole.num_rows > 3 * 4
    assert cut.schema == whole.schema
    assert cut.equals(whole)
    assert cut.column("question_id").to_pylist() == sorted(cut.column("question_id").to_pylist())


def test_question_parts_landed_in_duckdb_are_generate_alls_table(reference_tables, toy_nl_frames, toy_attrs,
                                                                  monkeypatch, tmp_path):
    """The model hands the workers' parts to `landed` (written into DuckDB as they come past a size, else one
    Arrow table): the same rows, in the same order and with the same types, as the one table generate_all makes,
    wherever the chunks are cut."""
    import duckdb

    from generator_py.dbt_glue.relations import landed
    from generator_py.questions import instances
    nl, meanings = toy_nl_frames
    base = [_compact(t) for t in reference_tables]
    many = [_uncompact((f"{c[0]}--x{i:03d}",) + c[1:]) for i in range(55) for c in base]
    whole = generate_all(many, nl, meanings, toy_attrs, 5, workers=1)
    monkeypatch.setattr(instances, "CHUNK_TABLES", 17)
    parts = instances.question_parts(many, nl, meanings, toy_attrs, 5, workers=2)
    session = duckdb.connect(str(tmp_path / "q.duckdb"))
    in_duckdb = landed(session, parts, "int_question_instances", order_by="question_id", hold_bytes=0)
    got = in_duckdb.to_arrow_table()
    session.register("whole", whole)
    assert got.num_rows == whole.num_rows > 200 * 13
    assert got.equals(session.sql("select * from whole").to_arrow_table())
    in_memory = landed(session, instances.question_parts(many, nl, meanings, toy_attrs, 5, workers=2),
                       "int_question_instances", order_by="question_id")
    assert in_memory.equals(whole)
    # as the model hands them over: an iterator read once, in table id order, with every table's keys
    ordered = sorted(many, key=lambda t: t.table_id)
    streamed = instances.question_parts(iter(ordered), nl, meanings, toy_attrs, 5, workers=2,
                                        table_keys=[(t.domain, t.template_name) for t in ordered])
    assert landed(session, streamed, "int_question_instances", order_by="question_id").equals(whole)
