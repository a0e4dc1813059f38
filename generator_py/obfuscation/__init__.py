"""Text-obfuscated variants of the synthetic tables and their questions (HCT-QA RQ3): the table's words
replaced consistently by invented non-words, numbers and structure kept."""
from .words import KEPT_WORDS, WordMap, build_word_map, nonword, words_of
from .variant import (OBFUSCATED_SUFFIX, obfuscated_question_id, obfuscated_table_id, obfuscate_grid,
                      obfuscate_instances, obfuscate_questions, obfuscate_relational_rows, obfuscate_spec,
                      obfuscate_sql, table_words)

__all__ = ["KEPT_WORDS", "WordMap", "build_word_map", "nonword", "words_of", "OBFUSCATED_SUFFIX",
           "obfuscated_question_id", "obfuscated_table_id", "obfuscate_grid", "obfuscate_instances",
           "obfuscate_questions", "obfuscate_relational_rows", "obfuscate_spec", "obfuscate_sql", "table_words"]
