"""The one final-answer marker: extraction, the strict reading, the reasoning split and icot's end agree on it."""
from evaluation_py.scoring.extraction import final_answer
from evaluation_py.scoring.final_answer import after_final_answer, before_final_answer, states_final_answer
from evaluation_py.modes.outcomes import reasoning_of
from evaluation_py.scoring.strict_reading import answer_part


def test_the_last_marker_splits_reasoning_from_answer():
    reply = "The final answer is not 3. Summing the rows, Final Answer: 42"
    assert after_final_answer(reply) == "42"
    assert before_final_answer(reply) == "The final answer is not 3. Summing the rows,"
    assert final_answer(reply) == "42"
    assert reasoning_of(reply) == before_final_answer(reply)
    assert answer_part(reply) == "42"


def test_lenient_marker_forms_and_no_marker():
    for reply in ("final answer is 7", "FINAL ANSWER = 7", "Final   answer:7", "final answer is: 7"):
        assert after_final_answer(reply) == "7", reply
    assert after_final_answer("just 7") == "just 7"
    assert before_final_answer("just 7") is None
    assert final_answer(None) is None


def test_icot_ends_only_at_a_stated_final_answer():
    assert states_final_answer("Final answer: Doha")
    assert not states_final_answer("I will give the final answer after one more step.")
    assert not states_final_answer("final answer is Doha")  # the colon is required to end an episode
