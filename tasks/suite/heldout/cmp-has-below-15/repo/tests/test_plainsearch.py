from plainsearch import has_below, index_below


def test_index_below():
    assert index_below([], 3) == -1
    assert index_below([9, 3], 2) == -1
    assert index_below([2, 1], 2) == 1


def test_has_below_edge_case():
    assert has_below([], 4) is False


def test_has_below_edge_case_2():
    assert has_below([3, 0, 2, 5, 3], 3) is True
