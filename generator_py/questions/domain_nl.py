"""One domain's NL, read and validated from the seeds: the phrasings of every question family of the build
(seeds/nl_templates.csv), the value meaning and report sentences (seeds/nl_table_meanings.csv), how
attributes and their values are said (seeds/domain_attributes.csv: spoken_name, value_phrase,
qualifier_phrase; see value_phrases.py), and, for the paraphrase sets only, more phrasings of the same
families (seeds/nl_paraphrases.csv: never drawn for a question, so they leave every build's questions as
they are)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from .template_syntax import MEANINGS_FILE, SEED_FILE, seed_row_error, parse_template
from .types import NLTemplateError
from .word_lists import or_list
from .value_phrases import check_template_phrases, read_phrase


def display_name(attr: str) -> str:
    return attr.replace("_", " ")


@dataclass(frozen=True)
class DomainNL:
    domain: str
    template_name: str
    value_meaning: str
    report: tuple  # ParsedTemplate per wording of the report sentence
    templates: dict  # NL template_id -> tuple[ParsedTemplate, ...] (ordered by phrasing)
    attribute_codes: dict  # attribute name -> (code, level)
    spoken: dict = field(default_factory=dict)  # attribute name -> how a person says it (domain_attributes)
    value_phrases: dict = field(default_factory=dict)  # attribute name -> ValuePhrase: its values with their head noun
    qualifiers: dict = field(default_factory=dict)  # attribute name -> ValuePhrase said after a shared head noun
    # render plans of its templates, filled by rendering.py on first use: (template_id, phrasing, text) -> plan
    render_plans: dict = field(default_factory=dict, compare=False, repr=False)
    # NL template_id -> phrasings used only to restate a drawn question (seeds/nl_paraphrases.csv)
    paraphrase_templates: dict = field(default_factory=dict)

    def say(self, attr: str) -> str:
        return self.spoken.get(attr) or display_name(attr)

    def say_values(self, attr: str, values: Sequence[str]) -> str:
        """The values of one condition as the question says them: an "or" list inside the attribute's
        value phrase ("Urban or Rural areas", "the Autumn term")."""
        listed = values[0] if len(values) == 1 else or_list(values)
        phrase = self.value_phrases.get(attr)
        return phrase.fill(listed) if phrase else listed

    def qualify(self, attr: str, values: Sequence[str]) -> Optional[str]:
        """The values said after the head noun they share with another condition ("of type Hotel or
        Office"), or None when the attribute has no qualifier phrase."""
        phrase = self.qualifiers.get(attr)
        return phrase.fill(values[0] if len(values) == 1 else or_list(values)) if phrase else None

    def phrasings(self, template_id: int) -> tuple:
        """The phrasings a question is drawn in."""
        return self.templates.get(template_id, ())

    def all_phrasings(self, template_id: int) -> tuple:
        """Every phrasing of the template, the paraphrase-only ones too, by phrasing number."""
        return tuple(sorted(self.templates.get(template_id, ()) + self.paraphrase_templates.get(template_id, ()),
                            key=lambda p: p.phrasing))


SEED_FILE_COLUMN, SEED_LINE_COLUMN = "seed_file", "seed_line"


def tag_seed_rows(frame, file: str):
    """The rows of one NL seed file (file order) tagged with the file and their line, so that rows of several
    files (seeds/nl_templates.csv and nl_templates_treb.csv) read as one frame name their own in errors."""
    return frame.assign(**{SEED_FILE_COLUMN: file, SEED_LINE_COLUMN: range(2, len(frame) + 2)})


def load_domain_nl(nl_templates_df, meanings_df, attributes_df, domain: str, template_name: str,
                   families: Optional[Iterable] = None, paraphrases_df=None) -> DomainNL:
    """Build the NL templates of one domain/template_name from the seed frames (validated).

    `families`: the question families of the build (default: every registered family); each needs
    phrasings under its NL template_id, checked against its NL requirements, and a row of another
    template_id is an error. Rows whose template_name is '*' apply to every template_name of the domain
    that has no own rows. `paraphrases_df` (seeds/nl_paraphrases.csv, for the paraphrase sets): more
    phrasings, checked the same way; a row of a family outside the build is left out, one of no registered
    family or reusing a phrasing number of nl_templates is an error.
    """
    if families is None:
        from .families import FAMILIES

        families = FAMILIES
    requirements = {}
    for f in families:
        requirements.setdefault(f.nl.template_id, f.nl)
    attrs = attributes_df[attributes_df["domain"] == domain]
    codes = {}
    spoken = {}
    value_phrases: dict = {}
    qualifiers: dict = {}
    for idx, r in attrs.iterrows():
        name = str(r["attribute_name"])
        codes[name] = (str(r["code"]), int(r["level"]))
        said = r.get("spoken_name")
        if isinstance(said, str) and said.strip():
            spoken[name] = said.strip()
        line = (int(idx) + 2) if isinstance(idx, int) else None
        for column, into in (("value_phrase", value_phrases), ("qualifier_phrase", qualifiers)):
            phrase = read_phrase(r.get(column), column, domain, name, line)
            if phrase is not None:
                into[name] = phrase
    names = set(codes)

    def rows_for(df):
        d = df[df["domain"] == domain]
        own = d[d["template_name"] == template_name]
        return own if len(own) else d[d["template_name"] == "*"]

    trows = rows_for(nl_templates_df)
    if not len(trows):
        raise NLTemplateError(f"{SEED_FILE}: no templates for domain={domain!r}, template_name={template_name!r}")
    parsed: dict[int, list] = {}
    tagged = SEED_FILE_COLUMN in trows.columns  # rows of several seed files (tag_seed_rows)
    for idx, r in trows.iterrows():
        line = int(r[SEED_LINE_COLUMN]) if tagged else (int(idx) + 2) if isinstance(idx, (int,)) else None
        file = str(r[SEED_FILE_COLUMN]) if tagged else SEED_FILE
        row = {"domain": domain, "template_name": r["template_name"], "template_id": int(r["template_id"]),
               "phrasing": int(r["phrasing"]), "line": line}
        tid = int(r["template_id"])
        if tid not in requirements:
            raise seed_row_error(f"template_id {tid} is the NL of no question family of the build "
                       f"(known: {', '.join(map(str, sorted(requirements)))})", row, file)
        text = str(r["text"])
        if not text.strip():
            raise seed_row_error("empty template text", row, file)
        template = parse_template(text, names, tid, int(r["phrasing"]), row, file, requirements=requirements[tid])
        check_template_phrases(template, codes, value_phrases, qualifiers, row)
        parsed.setdefault(tid, []).append(template)
    extra = _paraphrase_templates(paraphrases_df, rows_for, requirements, names, codes, value_phrases, qualifiers,
                                  parsed, domain) if paraphrases_df is not None else {}
    missing = [t for t in sorted(requirements) if t not in parsed]
    if missing:
        raise NLTemplateError(f"{SEED_FILE}: domain={domain!r}, template_name={template_name!r}: "
                              f"no template for template_id {missing}")
    mrows = rows_for(meanings_df)
    if len(mrows) != 1:
        raise NLTemplateError(f"{MEANINGS_FILE}: expected one row for domain={domain!r}, "
                              f"template_name={template_name!r}, found {len(mrows)}")
    m = mrows.iloc[0]
    mrow = {"domain": domain, "template_name": m["template_name"], "template_id": "report", "phrasing": 0}
    # several wordings, `;`-separated: questions of one table do not all end in the same sentence
    report = tuple(parse_template(text.strip(), names, 0, k + 1, mrow, MEANINGS_FILE)
                   for k, text in enumerate(str(m["report_sentence"]).split(";")) if text.strip())
    if not report or any("REPORTATTR" not in r.reserved for r in report):
        raise seed_row_error("every report sentence needs $REPORTATTR", mrow, MEANINGS_FILE)
    return DomainNL(domain, template_name, str(m["value_meaning"]), report,
                    {t: tuple(sorted(v, key=lambda p: p.phrasing)) for t, v in parsed.items()}, codes, spoken,
                    value_phrases, qualifiers, paraphrase_templates=extra)


PARAPHRASE_SEED_FILE = "seeds/nl_paraphrases.csv"


def _paraphrase_templates(frame, rows_for, requirements, names, codes, value_phrases, qualifiers, drawn,
                          domain: str) -> dict:
    """NL template_id -> the paraphrase-only phrasings of one domain/template_name (see load_domain_nl)."""
    from .families import ALL_FAMILIES

    registered = {ALL_FAMILIES.get(n).nl.template_id for n in ALL_FAMILIES.names()}
    out: dict[int, list] = {}
    tagged = SEED_LINE_COLUMN in frame.columns
    for idx, r in rows_for(frame).iterrows():
        line = int(r[SEED_LINE_COLUMN]) if tagged else (int(idx) + 2) if isinstance(idx, int) else None
        tid, phrasing = int(r["template_id"]), int(r["phrasing"])
        row = {"domain": domain, "template_name": r["template_name"], "template_id": tid, "phrasing": phrasing,
               "line": line}
        if tid not in registered:
            raise seed_row_error(f"template_id {tid} is the NL of no registered question family", row,
                                 PARAPHRASE_SEED_FILE)
        if tid not in requirements:
            continue  # a family of a suite this build leaves out
        if any(p.phrasing == phrasing for p in drawn.get(tid, ())) or any(p.phrasing == phrasing for p in out.get(tid, ())):
            raise seed_row_error(f"phrasing {phrasing} of template_id {tid} is given twice (nl_templates and "
                                 "nl_paraphrases number the phrasings of a template together)", row,
                                 PARAPHRASE_SEED_FILE)
        text = str(r["text"])
        if not text.strip():
            raise seed_row_error("empty template text", row, PARAPHRASE_SEED_FILE)
        template = parse_template(text, names, tid, phrasing, row, PARAPHRASE_SEED_FILE,
                                  requirements=requirements[tid])
        check_template_phrases(template, codes, value_phrases, qualifiers, row)
        out.setdefault(tid, []).append(template)
    return {t: tuple(sorted(v, key=lambda p: p.phrasing)) for t, v in out.items()}
