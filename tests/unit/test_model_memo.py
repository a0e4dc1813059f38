"""The memo's keys (generator_py/dbt_glue/model_memo.py): what changes a relation's content key and what does
not, and the wrapped model called or not as its key and its table say."""
from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from generator_py.dbt_glue import model_memo
from generator_py.dbt_glue.model_memo import content_key, memoized


@pytest.fixture
def con():
    c = duckdb.connect()
    c.execute("create schema main_memo")
    c.execute("create table main_memo.build_memo (relation varchar, input_key varchar, output_key varchar,"
              " files_json varchar, invocation_id varchar, reused boolean)")
    c.execute("create table t as select * from (values (1, 'a', 1.5), (2, 'b', null)) v(id, name, x)")
    yield c
    c.close()


def test_the_content_key_follows_every_value_row_and_column_but_not_the_row_order(con):
    key = content_key(con, "t")
    con.execute("create table shuffled as select * from t order by id desc")
    assert content_key(con, "shuffled") == key
    changes = {
        "value": "update t2 set name = 'c' where id = 2",
        "null": "update t2 set x = 0 where id = 2",
        "row": "insert into t2 values (3, 'c', 0.5)",
        "duplicate": "insert into t2 select * from t2 where id = 1",
        "column": "alter table t2 rename column x to y",
        "type": "alter table t2 alter column id type bigint",
    }
    for change, sql in changes.items():
        con.execute("create or replace table t2 as select * from t")
        assert content_key(con, "t2") == key
        con.execute(sql)
        assert content_key(con, "t2") != key, change
    assert content_key(con, "no_such_table") == "absent"


def test_a_frame_and_the_table_made_from_it_have_one_key(con):
    frame = pd.DataFrame({"id": [1, 2], "texts": [["a"], None], "none": [None, None], "x": [0.5, float("nan")]})
    con.register("frame", frame)
    con.execute("create table made as select * from frame")
    assert content_key(con, "frame") == content_key(con, "made")


def _wrapped(calls, invocation, full_refresh=False):
    def model(dbt, session):
        calls.append(invocation)
        return session.sql("select id, name from t")

    return memoized(model, relation="main.out", schema="main_memo", inputs={"t": "t"}, config={"seed": 42},
                    code_digest="c1", invocation=invocation, mode="True", full_refresh=full_refresh)


def _run(con, wrapped):
    result = wrapped(None, con)
    con.execute("create or replace table main.out as select * from result")
    return result


def test_the_model_runs_only_when_its_key_or_its_table_changed(con):
    calls: list[str] = []
    _run(con, _wrapped(calls, "run1"))
    _run(con, _wrapped(calls, "run2"))
    assert calls == ["run1"]
    assert con.execute("select reused, invocation_id from main_memo.build_memo").fetchall() == [(True, "run2")]
    con.execute("update t set name = 'z' where id = 1")  # an input changed
    _run(con, _wrapped(calls, "run3"))
    assert calls == ["run1", "run3"]
    con.execute("delete from main.out")  # the table changed by hand
    _run(con, _wrapped(calls, "run4"))
    assert calls == ["run1", "run3", "run4"]
    assert con.execute("select count(*) from main.out").fetchall() == [(2,)]
    _run(con, _wrapped(calls, "run5", full_refresh=True))  # dbt build --full-refresh
    assert calls == ["run1", "run3", "run4", "run5"]
    _run(con, _wrapped(calls, "run6"))
    assert calls == ["run1", "run3", "run4", "run5"]


def test_the_library_digest_covers_the_packages_code():
    digest = model_memo.library_digest()
    assert len(digest) == 64 and digest == model_memo.library_digest()
