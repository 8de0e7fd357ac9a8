from simplebalance import balance_delta, not_losing


def test_balance_delta_more_1():
    assert balance_delta([], [5, 5]) == -10


def test_balance_delta_more_2():
    assert balance_delta([5], [20]) == -15


def test_not_losing_more_1():
    assert not_losing([5], [12, 13, 14]) is False
