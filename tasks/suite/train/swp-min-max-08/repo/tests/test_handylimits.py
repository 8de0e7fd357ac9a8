from handylimits import is_even, min_max, spread


def test_is_even():
    assert is_even(2) is True
    assert is_even(0) is True
    assert is_even(1) is False


def test_min_max():
    assert min_max([4]) == (4, 4)
    assert min_max([2, 2]) == (2, 2)
    assert min_max([1]) == (1, 1)


def test_spread():
    assert spread([2, 2]) == 0
    assert spread([4]) == 0
    assert spread([1]) == 0


def test_spread_edge_case():
    assert spread([3, 8, 9, 0]) == 9
