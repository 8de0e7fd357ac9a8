from handycombinatorics import binomial, factorial


def test_factorial_more_1():
    assert factorial(2) == 2


def test_factorial_more_2():
    assert factorial(7) == 5040


def test_binomial_more_1():
    assert binomial(6, 5) == 6
