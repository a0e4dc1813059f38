-- Every original question's answer as the marts state it (macro question_answer_texts): benchmark_questions takes
-- these rows for its originals, and the choice items read them without waiting for the variants' questions.
{{ question_answer_texts(ref('int_question_answers')) }}
