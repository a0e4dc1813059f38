"""Question generation (question families: the SQL templates 1-15 of the HCT-QA paper) and NL rendering."""
from .diversity import question_diversity
from .domain_nl import DomainNL, load_domain_nl
from .families import FAMILIES, METADATA_COLUMNS, FamilyRegistry, QuestionFamily, question_id
from .generate import generate_questions
from .properties import QUESTION_PROPERTIES, QUESTION_PROPERTY_COLUMNS, release_name_to_column
from .rendering import render_question
from .spec import evaluate_spec, spec_sql
from .template_syntax import NLRequirements, parse_template
from .types import Measure, NLTemplateError, QuestionInstance

__all__ = [
    "DomainNL", "FAMILIES", "FamilyRegistry", "METADATA_COLUMNS", "Measure", "NLRequirements", "NLTemplateError",
    "QUESTION_PROPERTIES", "QUESTION_PROPERTY_COLUMNS", "QuestionFamily", "QuestionInstance", "evaluate_spec",
    "generate_questions", "load_domain_nl", "parse_template", "question_diversity", "question_id",
    "release_name_to_column", "render_question", "spec_sql",
]
