-- Ground truth of every counterfactual question, executed from its spec on its own layout's relational table by
-- the macro of the benchmark's answers (never copied from the base; a data test checks they are the base's).
{{ question_answers(ref('int_counterfactual_question_instances'), ref('int_counterfactual_relational_cells')) }}
