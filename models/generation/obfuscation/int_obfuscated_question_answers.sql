-- Ground truth of every obfuscated question from its (mapped) spec on the obfuscated relational table,
-- by the same macro as the originals' int_question_answers: nothing is copied from the original answer.
{{ question_answers(ref('int_obfuscated_question_instances'), ref('int_obfuscated_relational_cells')) }}
