"""TReB's skills and subtasks: the vocabulary a question family's `treb_skill` and `treb_subtask` are spelled
in (checked when the family is registered, so a misspelt subtask fails at import, naming the family).

Which subtasks a build measures is what its registered families declare (`declared_subtasks`); the analysis
reads the columns of benchmark_questions, never this vocabulary. Skills are TReB's upper-case codes,
subtasks lower-case words.
"""
from __future__ import annotations

SKILLS: dict[str, str] = {
    "NLU": "natural language understanding",
    "TU": "table understanding",
    "TBO": "table basic operation",
    "TCO": "table computational operation",
    "DA": "data analysis",
    "ADA": "advanced data analysis",
}

SUBTASKS: dict[str, tuple[str, ...]] = {
    "NLU": ("understanding", "instruction_following", "hallucination", "robustness", "code_generation",
            "mathematical_reasoning"),
    "TU": ("table_retrieval", "table_summary", "column_naming", "title_naming", "fact_checking",
           "plausibility_verification"),
    "TBO": ("table_query", "table_selection"),
    "TCO": ("general_operations", "domain_specific_operations"),
    "DA": ("outlier_detection", "correlation_analysis", "hypothesis_testing", "distribution_testing"),
    "ADA": ("multi_step_retrieval", "multi_step_fact_checking", "multi_step_operations",
            "multi_step_correlation_analysis", "multi_step_hypothesis_testing", "multi_step_conditional_calculation"),
}


def check_declaration(owner: str, skill: object, subtask: object) -> None:
    """A ValueError naming `owner` unless (skill, subtask) is one of TReB's pairs."""
    if skill not in SUBTASKS:
        raise ValueError(f"{owner}: treb_skill must be one of {', '.join(SUBTASKS)}, got {skill!r}")
    if subtask not in SUBTASKS[skill]:
        raise ValueError(f"{owner}: treb_subtask of skill {skill} must be one of {', '.join(SUBTASKS[skill])}, "
                         f"got {subtask!r}")


def declared_subtasks(families) -> list[tuple[str, str]]:
    """(skill, subtask) pairs the given families declare, in family order, each once."""
    return list(dict.fromkeys((f.treb_skill, f.treb_subtask) for f in families))
