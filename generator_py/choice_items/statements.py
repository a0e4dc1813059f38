"""The statement form of the lookup items (TabIS's options as full sentences): `The number of casualties
in Kassel in 2017 is 431.` against the same sentence with the distractor's values.

The subject comes from seeds/choice_statements.csv, per domain and table template, in the NL template
mini-language of the questions (generator_py.questions.template_syntax): the question's conditions fill
its placeholders, as they fill the question's own phrasing. The values follow as `is <v>.` or
`are <v1>, ..., and <vn>.` in the answer's row order, so the sentence states exactly the option's values.
"""
from __future__ import annotations

from typing import Optional, Sequence

import pandas as pd

from ..questions.domain_nl import DomainNL
from ..questions.query_facts import QueryFacts, Scope
from ..questions.rendering import and_list, render_question
from ..questions.template_syntax import parse_template
from ..questions.types import NLTemplateError
from ..release.gt import gt_rows

STATEMENT_SEED = "seeds/choice_statements.csv"
# the value lookups (Table III SQL1-3 and SQL6): their answers are cells, each named by the conditions
STATEMENT_TEMPLATES = frozenset({1, 2, 3, 6})


def statement(subject: str, values: Sequence[str]) -> str:
    verb = "is" if len(values) == 1 else "are"
    return f"{subject} {verb} {and_list(list(values))}."


class StatementWriter:
    """Subjects per (domain, template_name) from the seed frame, parsed once; `sentence` fills one."""

    def __init__(self, statements: pd.DataFrame, attributes: pd.DataFrame):
        missing = [c for c in ("domain", "template_name", "text") if c not in statements.columns]
        if missing:
            raise ValueError(f"{STATEMENT_SEED}: missing column(s) {', '.join(missing)}")
        self._rows = {}
        for line, r in enumerate(statements.to_dict("records"), start=2):
            key = (str(r["domain"]), str(r["template_name"]))
            if key in self._rows:
                raise NLTemplateError(f"{STATEMENT_SEED}: line {line}: a second row for domain={key[0]!r}, "
                                      f"template_name={key[1]!r}")
            text = r["text"]
            if not isinstance(text, str) or not text.strip():
                raise NLTemplateError(f"{STATEMENT_SEED}: line {line}: empty text")
            self._rows[key] = (line, text)
        self._attributes = attributes
        self._parsed: dict = {}

    def _subject_template(self, domain: str, template_name: str):
        key = (domain, template_name)
        if key not in self._parsed:
            found = self._rows.get(key) or self._rows.get((domain, "*"))
            if found is None:
                raise NLTemplateError(f"{STATEMENT_SEED}: no row for domain={domain!r}, "
                                      f"template_name={template_name!r} (nor template_name '*')")
            line, text = found
            attrs = self._attributes[self._attributes["domain"] == domain]
            codes = {str(a.attribute_name): (str(a.code), int(a.level)) for a in attrs.itertuples(index=False)}
            spoken = {str(a.attribute_name): a.spoken_name.strip() for a in attrs.itertuples(index=False)
                      if isinstance(getattr(a, "spoken_name", None), str) and a.spoken_name.strip()}
            row = {"domain": domain, "template_name": template_name, "line": line}
            template = parse_template(text, codes, 0, 1, row, STATEMENT_SEED)
            if template.reserved:
                raise NLTemplateError(f"{STATEMENT_SEED}: line {line}: a subject names conditions only, not "
                                      f"${', $'.join(sorted(template.reserved))}")
            nl = DomainNL(domain, template_name, "", (), {}, codes, spoken)
            self._parsed[key] = (template, nl)
        return self._parsed[key]

    def subject(self, domain: str, template_name: str, spec: dict) -> str:
        """The subject with the question's conditions (an error when the seed's text leaves one out)."""
        template, nl = self._subject_template(domain, template_name)
        conditions = {f["attribute"]: [str(v) for v in f["values"]] for f in spec["filters"]}
        facts = QueryFacts(Scope(conditions=conditions), [], True, [], [], None, None)
        return render_question(template, facts, nl)

    def sentences(self, domain: str, template_name: str, spec: dict,
                  options: Sequence[str]) -> Optional[list[str]]:
        """Each option (a `gt` answer of one value per row) as a statement; None when an option is not."""
        value_lists = []
        for option in options:
            rows = gt_rows(option)
            if not rows or any(len(r) != 1 for r in rows):
                return None
            value_lists.append([r[0] for r in rows])
        subject = self.subject(domain, template_name, spec)
        return [statement(subject, values) for values in value_lists]
