from minipicks import first_or_none, index_of_min, min_value


def test_index_of_min():
    assert index_of_min([4]) == 0


def test_index_of_min_edge_case():
    assert index_of_min([5, 3, 5, 6, 0]) == 4


def test_index_of_min_edge_case_2():
    assert index_of_min([3, 3, 1]) == 2


def test_min_value():
    assert min_value([4]) == 4
    assert min_value([2, 2]) == 2


def test_min_value_edge_case():
    assert min_value([4, 6, 2, 1]) == 1


def test_first_or_none():
    assert first_or_none([9]) == 9
    assert first_or_none([4, 5]) == 4
    assert first_or_none([]) is None
