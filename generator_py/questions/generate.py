"""Questions for one table: every question family of the build drawn on it (families/registry.py).

Each table draws from its own RNG (seeded by the build seed and the table id). A family's instance is
evaluated in Python (spec.evaluate_spec) and redrawn, up to MAX_TRIES times, until it is valid: a
non-empty answer without NULLs (one width per answer row) that the family accepts, and an NL text no
other question of the table has.
"""
from __future__ import annotations

from typing import Iterable, Optional, Sequence

from ..tables.relational import RelationalTable
from ..core.rng import rng_for
from .domain_nl import DomainNL
from .families import FAMILIES, QUESTION_VARIETIES, QuestionFamily, question_id
from .query_facts import query_facts
from .rendering import render_question
from .spec import ast_to_sql, evaluate_filtered, filtered_rows, spec_to_ast
from .table_model import TableModel
from .types import Measure, QuestionInstance

MAX_TRIES = 25


def _complete(answer: list) -> bool:
    # an answer row holding a level missing in an unbalanced branch (a NULL, left out of the gt string)
    # would be narrower than the SELECT list: such an instance is redrawn
    return bool(answer) and not any(v is None for row in answer for v in row)


def generate_questions(table: RelationalTable, nl: DomainNL, seed: int,
                       families: Optional[Iterable[QuestionFamily]] = None,
                       rows: Optional[Sequence[tuple]] = None, variety: str = "paper",
                       measure: Measure = Measure(), paraphrases: bool = False) -> list[QuestionInstance]:
    """Questions for one table: up to `variants` per applicable family, in family order (pure, deterministic).

    `families`: the families of the build (default: every registered family, families.FAMILIES);
    `variety`: one of QUESTION_VARIETIES (Table III as written, or the wider aggregate choices);
    `rows`: optional plain rows of the table (see TableModel), to skip reading `table.frame`;
    `measure`: the aggregations the table's measure admits and its non-additive attributes;
    `paraphrases`: also render each question in every other phrasing of its template (`nl.all_phrasings`;
    no draw changes, so the questions are the same either way).
    """
    if variety not in QUESTION_VARIETIES:
        raise ValueError(f"var question_variety must be one of {', '.join(QUESTION_VARIETIES)}, got {variety!r}")
    rng = rng_for(seed, table.table_id)
    m = TableModel(table, rows, measure)
    out: list[QuestionInstance] = []
    texts: set[str] = set()
    for family in FAMILIES if families is None else families:
        if not family.applicable(m):
            continue
        phrasings = nl.phrasings(family.nl.template_id)
        others = nl.all_phrasings(family.nl.template_id) if paraphrases else ()
        if family.kind != "sql":
            out.extend(_computed_questions(family, m, rng, variety, nl, phrasings, texts, others))
            continue
        n_asked = 0
        for _ in range(family.variants):
            for spec, extra in _draws(family, m, rng, variety):
                sel = filtered_rows(m.rows, spec)
                answer = evaluate_filtered(m.rows, spec, sel)
                if not _complete(answer) or not family.valid(spec, answer, sel, m, extra):
                    continue
                ast = spec_to_ast(spec)
                facts = query_facts(ast)  # read once from the AST: for the text and for sql_literals
                tpl = rng.choice(phrasings)
                text = render_question(tpl, ast, nl, facts)
                if text in texts:
                    continue
                texts.add(text)
                md = family.metadata(spec, m)
                choices = extra.get("choices")
                out.append(QuestionInstance(
                    question_id=question_id(table.table_id, family.family_id, n_asked), table_id=table.table_id,
                    template_id=family.template_id, phrasing=tpl.phrasing, sql=ast_to_sql(ast), question=text,
                    spec=spec, metadata=md, properties=family.properties(spec, md, m, len(sel)),
                    answer_rows=answer, sql_literals=facts.literals, family=family.family_id,
                    family_variant=n_asked, kind=family.kind, tables=(table.table_id,), suite=family.suite,
                    answer_type=family.answer_type,
                    treb_skill=family.treb_skill, treb_subtask=family.treb_subtask, treb_metric=family.treb_metric,
                    choices=None if choices is None else tuple(choices), label=extra.get("label"),
                    paraphrases=tuple((p.phrasing, render_question(p, ast, nl, facts))
                                      for p in others if p.phrasing != tpl.phrasing)))
                n_asked += 1
                break
    return out


def _draws(family, m: TableModel, rng, variety: str):
    """A family's draws of one question on a table, up to MAX_TRIES; none more once the family says the
    table is exhausted. The caller stops at the first draw it keeps."""
    for _ in range(MAX_TRIES):
        drawn = family.draw(m, rng, variety)
        if drawn is None:
            if family.exhausted(m):
                return
            continue
        yield drawn


def _computed_questions(family, m: TableModel, rng, variety: str, nl: DomainNL, phrasings, texts: set,
                        others=()) -> list:
    """Questions of a family answered by its own computation (families/computed.py), drawn like the others:
    up to `variants`, each redrawn up to MAX_TRIES times until the family can answer it and its text is new."""
    out: list[QuestionInstance] = []
    table_id = m.table.table_id
    for _ in range(family.variants):
        for spec, extra in _draws(family, m, rng, variety):
            answer = family.compute(spec, m, extra)
            if not answer:
                if family.exhausted(m):
                    break
                continue
            sql, facts, n_read = family.statement(spec, m)
            tpl = rng.choice(phrasings)
            text = family.finish_question(render_question(tpl, None, nl, facts), spec)
            if text in texts:
                continue
            texts.add(text)
            md = family.metadata(spec, m)
            change = family.rendering_change(spec, extra)
            out.append(QuestionInstance(
                question_id=question_id(table_id, family.family_id, len(out)), table_id=table_id,
                template_id=family.template_id, phrasing=tpl.phrasing, sql=sql, question=text, spec=spec,
                metadata=md, properties=family.properties(spec, md, m, n_read), answer_rows=answer,
                sql_literals=facts.literals, family=family.family_id, family_variant=len(out), kind=family.kind,
                tables=(table_id,), suite=family.suite, answer_type=family.answer_type,
                    treb_skill=family.treb_skill, treb_subtask=family.treb_subtask, treb_metric=family.treb_metric,
                hides_caption=change["hides_caption"], blank_cell=change["blank_cell"],
                paraphrases=tuple((p.phrasing, family.finish_question(render_question(p, None, nl, facts), spec))
                                  for p in others if p.phrasing != tpl.phrasing)))
            break
    return out
