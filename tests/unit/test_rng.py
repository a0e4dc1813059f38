"""Seeded integers: the batch form gives what the one-at-a-time form gives."""
from generator_py.core.rng import stable_int, stable_ints


def test_stable_ints_are_stable_int_of_the_prefix_and_each_value():
    values = ["b_tis--syn--a--v0001--r1--x", "ü", "", 7, "a|b"]
    assert stable_ints((42, "choice-example-pool"), values) == [stable_int(42, "choice-example-pool", v) for v in values]
    assert stable_ints((), ["x", 3]) == [stable_int("x"), stable_int(3)]
    # a value is hashed after the prefix's separator: the prefix and the value do not run into each other
    assert stable_ints(("a",), ["b"]) != stable_ints(("ab",), [""])
