from simplebalance import balance_delta, not_losing


def test_balance_delta():
    assert balance_delta([5], []) == 5
    assert balance_delta([], []) == 0
    assert balance_delta([10], []) == 10


def test_balance_delta_edge_case():
    assert balance_delta([5], [12, 13, 14]) == -34


def test_balance_delta_edge_case_2():
    assert balance_delta([10], [12, 13, 14]) == -29


def test_not_losing():
    assert not_losing([8], []) is True
    assert not_losing([10], [5, 5]) is True
    assert not_losing([], []) is True
