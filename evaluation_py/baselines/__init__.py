"""Non-LLM baselines that answer HCT-QA questions from the table HTML alone."""
from evaluation_py.baselines.header_match import answer_question

__all__ = ["answer_question"]
