-- Ground truth of every counterfactual question, executed from its spec on its own layout's relational table by
-- the macro of the benchmark's answers (never copied from the base; a data test checks they are the base's).
{{ config(pre_hook="{{ one_duckdb_thread_past(ref('int_counterfactual_relational_cells'), 5000000) }}", post_hook="reset threads") }}
{{ question_answers(ref('int_counterfactual_question_instances'), ref('int_counterfactual_relational_cells')) }}
