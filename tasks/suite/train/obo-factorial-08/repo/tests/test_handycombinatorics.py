from handycombinatorics import binomial, distinct, factorial


def test_factorial():
    assert factorial(0) == 1
    assert factorial(1) == 1


def test_factorial_edge_case():
    assert factorial(3) == 6


def test_factorial_edge_case_2():
    assert factorial(4) == 24


def test_binomial():
    assert binomial(1, 1) == 1
    assert binomial(5, 0) == 1
    assert binomial(3, 3) == 1


def test_distinct():
    assert distinct([5, 4, 6]) == [4, 5, 6]
    assert distinct([]) == []
    assert distinct([2, 2, 2]) == [2]
