from handycounts import is_even, num_greater, only_over


def test_is_even():
    assert is_even(0) is True
    assert is_even(1) is False
    assert is_even(7) is False


def test_num_greater():
    assert num_greater([], 2) == 0
    assert num_greater([6, 1, 5], 4) == 2
    assert num_greater([2, 0, 0, 4], 6) == 0


def test_num_greater_edge_case():
    assert num_greater([2, 0, 0, 4], 4) == 0


def test_num_greater_edge_case_2():
    assert num_greater([2, 6, 9, 8, 3], 2) == 4


def test_only_over():
    assert only_over([4], 6) == []
    assert only_over([2, 0, 0, 4], 2) == [4]
    assert only_over([2, 0, 0, 4], 6) == []
