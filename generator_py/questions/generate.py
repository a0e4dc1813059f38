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
from .spec import evaluate_filtered, filtered_rows, spec_sql
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
                       measure: Measure = Measure(), partner: Optional[RelationalTable] = None,
                       paraphrases: bool = False) -> list[QuestionInstance]:
    """Questions for one table: up to `variants` per applicable family, in family order (pure, deterministic).

    `families`: the families of the build (default: every registered family, families.FAMILIES);
    `variety`: one of QUESTION_VARIETIES (Table III as written, or the wider aggregate choices);
    `rows`: optional plain rows of the table (see TableModel), to skip reading `table.frame`;
    `measure`: the aggregations the table's measure admits and its non-additive attributes;
    `partner`: the table paired with it (questions/table_pairs.py), which the families reading two tables read
    second; without one they ask nothing on this table.
    `paraphrases`: also render each question in every other phrasing of its template (`nl.all_phrasings`;
    no draw changes, so the questions are the same either way).
    """
    if variety not in QUESTION_VARIETIES:
        raise ValueError(f"var question_variety must be one of {', '.join(QUESTION_VARIETIES)}, got {variety!r}")
    rng = rng_for(seed, table.table_id)
    m = TableModel(table, rows, measure)
    if partner is not None:
        m.partner = TableModel(partner, None, measure)
    out: list[QuestionInstance] = []
    texts: set[str] = set()
    for family in FAMILIES if families is None else families:
        if (family.n_tables == 2 and m.partner is None) or not family.applicable(m):
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
                facts = query_facts(spec)  # read once: for the text and for sql_literals
                tpl = rng.choice(phrasings)
                text = render_question(tpl, facts, nl)
                if text in texts:
                    continue
                texts.add(text)
                md = family.metadata(spec, m)
                choices = extra.get("choices")
                out.append(QuestionInstance(
                    question_id=question_id(table.table_id, family.family_id, n_asked), table_id=table.table_id,
                    template_id=family.template_id, phrasing=tpl.phrasing, sql=spec_sql(spec), question=text,
                    spec=spec, metadata=md, properties=family.properties(spec, md, m, len(sel)),
                    answer_rows=answer, sql_literals=facts.literals, family=family.family_id,
                    family_variant=n_asked, kind=family.kind, tables=(table.table_id,), table_roles=family.table_roles,
                    table_conditions=tuple(family.table_conditions(spec)), suite=family.suite,
                    answer_type=family.answer_type,
                    treb_skill=family.treb_skill, treb_subtask=family.treb_subtask, treb_metric=family.treb_metric,
                    choices=None if choices is None else tuple(choices), label=extra.get("label"),
                    paraphrases=tuple((p.phrasing, render_question(p, facts, nl))
                                      for p in others if p.phrasing != tpl.phrasing)))
                n_asked += 1
                break
    return out


def _draws(family, m: TableModel, rng, variety: str, asked: Optional[list] = None):
    """A family's draws of one question on a table, up to MAX_TRIES; none more once the family says the
    table is exhausted. The caller stops at the first draw it keeps. `asked`: the specs of the family's
    questions on this table so far, for a family whose later questions follow its first (`draw_next`)."""
    for _ in range(MAX_TRIES):
        drawn = family.draw(m, rng, variety) if asked is None else family.draw_next(m, rng, variety, asked)
        if drawn is None:
            if family.exhausted(m):
                return
            continue
        yield drawn


def _computed_questions(family, m: TableModel, rng, variety: str, nl: DomainNL, phrasings, texts: set,
                        others=()) -> list:
    """Questions of a family answered by its own computation (families/computed.py) or its own SQL text
    (families/sql_text.py), drawn like the others: up to `variants`, each redrawn up to MAX_TRIES times until the
    family can answer it and its text is new. A family asking one question on several views of its table
    (`repeats_question`) asks its first question's text, in its first question's phrasing, again on each later
    view. `others`: every phrasing of its template, each of which restates the question (paraphrase sets)."""
    out: list[QuestionInstance] = []
    table_id = m.table.table_id
    for _ in range(family.variants):
        for spec, extra in _draws(family, m, rng, variety, [q.spec for q in out]):
            solution = family.solve(spec, m, extra)
            if not solution:
                if family.exhausted(m):
                    break
                continue
            sql, facts, n_read = family.statement(spec, m)
            repeated = family.repeats_question and out
            tpl = next(p for p in phrasings if p.phrasing == out[0].phrasing) if repeated else rng.choice(phrasings)
            text = family.question_text(tpl, nl, spec, facts)
            if repeated:
                if text != out[0].question:  # its view differs, never its wording
                    raise ValueError(f"question family {family.family_id!r} on table {table_id}: a later view's "
                                     f"question {text!r} is not its first question {out[0].question!r}")
            elif text in texts:
                continue
            texts.add(text)
            md = family.metadata(spec, m)
            change = family.rendering_change(spec, extra)
            steps = None if solution.steps is None else [s.as_json() for s in solution.steps]
            out.append(QuestionInstance(
                question_id=question_id(table_id, family.family_id, len(out)), table_id=table_id,
                template_id=family.template_id, phrasing=tpl.phrasing, sql=sql, question=text, spec=spec,
                metadata=md, properties=family.properties(spec, md, m, n_read), answer_rows=solution.answer,
                sql_literals=facts.literals, family=family.family_id, family_variant=len(out), kind=family.kind,
                tables=(table_id,) + ((m.partner.table.table_id,) if family.n_tables == 2 else ()),
                table_roles=family.table_roles, table_conditions=tuple(family.table_conditions(spec)),
                suite=family.suite, answer_type=family.answer_type,
                treb_skill=family.treb_skill, treb_subtask=family.treb_subtask, treb_metric=family.treb_metric,
                hides_caption=change["hides_caption"], blank_cell=change["blank_cell"],
                grid_change=change.get("grid_change"), steps=steps,
                paraphrases=tuple((p.phrasing, family.question_text(p, nl, spec, facts))
                                  for p in others if p.phrasing != tpl.phrasing)))
            break
    return out
