"""What backends that answer without a model (oracle, header_match, replay) read from the benchmark.

Requests carry no benchmark content (no ground truth, no table beside the prompt); such a backend is
built with a `BenchmarkLookup` over benchmark_questions / benchmark_tables instead, and what it reads
for a request (`fields`) also enters that request's cache key, so a corrected gt or table is a new
answer. A choice request reads the same interface over its own maps (`BenchmarkLookup.of_maps`: request id ->
the item's question and the right letter in its order, no tables).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from generator_py.render.registry import format_names

if TYPE_CHECKING:  # pandas is imported where a frame is made: importing the backends (the mode registry) needs none
    import pandas as pd


class BenchmarkLookup:
    """question_id -> question text, gt, output instruction and own table view (and its table); table_id -> the
    table's HTML."""

    FIELDS = ("question_id", "question", "answer_gt", "table_html", "output_instruction")

    def __init__(self, questions: "pd.DataFrame", tables: "pd.DataFrame | None" = None):
        self._where = "benchmark lookup", "question", "not in benchmark_questions"
        ids = questions["question_id"].astype(str).tolist()
        self._question = dict(zip(ids, questions["question"].tolist())) if "question" in questions else {}
        self._gt = dict(zip(ids, questions["answer_gt"].tolist())) if "answer_gt" in questions else {}
        self._table_of = dict(zip(ids, questions["table_id"].tolist())) if "table_id" in questions else {}
        # what a question states beyond its text: its output instruction, its own view of its table (HTML)
        self._instruction = {q: i for q, i in zip(ids, questions["output_instruction"].tolist())
                             if isinstance(i, str)} if "output_instruction" in questions else {}
        self._own_html = {q: h for q, h in zip(ids, questions["rendering_html"].tolist())
                          if isinstance(h, str) and h} if "rendering_html" in questions else {}
        self._html: dict[str, str] = {}
        if tables is not None and "html" in tables:
            self._html = dict(zip(tables["table_id"].tolist(), tables["html"].tolist()))
        # The text renderings a pot / icot program gets (evaluation_py.modes.execution): the table's, or the
        # question's own view of it (rendering_<format>: a hidden or changed part) where it has one.
        self._texts: dict[str, dict[str, str]] = {}
        self._own_texts: dict[str, dict[str, str]] = {}
        for name in format_names(text_only=True):
            if tables is not None and name in tables:
                for table_id, text in zip(tables["table_id"].tolist(), tables[name].tolist()):
                    self._texts.setdefault(table_id, {})[name] = text
            if f"rendering_{name}" in questions:
                for qid, text in zip(ids, questions[f"rendering_{name}"].tolist()):
                    if isinstance(text, str) and text:
                        self._own_texts.setdefault(qid, {})[name] = text

    @classmethod
    def of_maps(cls, question: dict[str, str], answer_gt: dict[str, str], *, name: str, what: str,
                missing: str) -> "BenchmarkLookup":
        """A lookup over given maps (id -> question text, id -> gt) and no tables; errors say `name`, `what`
        an id is and why it is `missing`."""
        import pandas as pd

        lookup = cls(pd.DataFrame({"question_id": []}))
        lookup._question, lookup._gt = dict(question), dict(answer_gt)
        lookup._where = name, what, missing
        return lookup

    def _question_row(self, question_id: str, into: dict, what: str):
        if question_id not in into:
            name, kind, missing = self._where
            raise KeyError(f"{name}: {kind} {question_id!r} has no {what} ({missing})")
        return into[question_id]

    def question(self, question_id: str) -> str:
        return self._question_row(question_id, self._question, "question text")

    def answer_gt(self, question_id: str) -> str:
        return self._question_row(question_id, self._gt, "answer_gt")

    def table_html(self, table_id: str) -> str:
        """The table's HTML, "" for a table the benchmark does not have (a question without its table)."""
        return self._html.get(table_id, "")

    def question_table_html(self, question_id: str, table_id: str) -> str:
        """The HTML of the table as the question shows it: its own view (`rendering_html`: a naming question's
        table without its answer, a perturbed or changed table) where it has one, else its table's."""
        return self._own_html.get(question_id) or self.table_html(table_id)

    def output_instruction(self, question_id: str):
        """The question's output instruction (JSON text), None for a question stating none."""
        return self._instruction.get(question_id)

    def table_texts(self, table_id: str, question_id: str | None = None) -> dict[str, str]:
        """The table's text renderings by registered text format, or question `question_id`'s own view of it
        where it has one; KeyError for an unknown table."""
        if question_id is not None and question_id in self._own_texts:
            return self._own_texts[question_id]
        if table_id not in self._texts:
            raise KeyError(f"benchmark lookup: table {table_id!r} has no renderings (not in benchmark_tables)")
        return self._texts[table_id]

    def fields(self, question_id: str, table_id: str, names: Iterable[str]) -> dict:
        """The named fields of one request, as a backend reads them (for its cache key)."""
        out = {}
        for name in names:
            if name == "question_id":
                out[name] = question_id
            elif name == "question":
                out[name] = self.question(question_id)
            elif name == "answer_gt":
                out[name] = self.answer_gt(question_id)
            elif name == "table_html":
                out[name] = self.question_table_html(question_id, table_id)
            elif name == "output_instruction":
                instruction = self.output_instruction(question_id)
                if instruction is not None:  # a question without one keeps the key it had before the field
                    out[name] = instruction
            else:
                raise ValueError(f"{self._where[0]}: unknown field {name!r}; known: {', '.join(self.FIELDS)}")
        return out
