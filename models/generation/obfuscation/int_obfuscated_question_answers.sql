-- Ground truth of every obfuscated question from its (mapped) spec on the obfuscated relational table,
-- by the same macro as the originals' int_question_answers: nothing is copied from the original answer.
{{ config(pre_hook="{{ one_duckdb_thread_past(ref('int_obfuscated_relational_cells'), 5000000) }}", post_hook="reset threads") }}
{{ question_answers(ref('int_obfuscated_question_instances'), ref('int_obfuscated_relational_cells')) }}
