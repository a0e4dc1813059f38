"""Question generation (SQL templates 1-15 of the HCT-QA paper) and NL rendering."""
from .diversity import question_diversity
from .generate import METADATA_COLUMNS, TEMPLATE_IDS, generate_questions, stable_seed
from .nl import DomainNL, load_domain_nl, parse_template, render_question
from .properties import QUESTION_PROPERTIES, QUESTION_PROPERTY_COLUMNS, release_name_to_column
from .spec import evaluate_spec, spec_to_ast
from .types import Measure, NLTemplateError, QuestionInstance

__all__ = [
    "DomainNL", "METADATA_COLUMNS", "Measure", "NLTemplateError", "QUESTION_PROPERTIES", "QUESTION_PROPERTY_COLUMNS",
    "QuestionInstance", "TEMPLATE_IDS", "evaluate_spec", "generate_questions", "load_domain_nl",
    "parse_template", "question_diversity", "release_name_to_column", "render_question", "spec_to_ast",
    "stable_seed",
]
