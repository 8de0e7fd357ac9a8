from smalllimits import num_at_least, only_at_least


def test_num_at_least():
    assert num_at_least([7, 6, 2], 3) == 2
    assert num_at_least([6, 4, 7, 5], 3) == 4
    assert num_at_least([], 6) == 0


def test_num_at_least_edge_case():
    assert num_at_least([7, 6, 2], 6) == 2


def test_num_at_least_edge_case_2():
    assert num_at_least([6], 6) == 1


def test_only_at_least():
    assert only_at_least([5, 0], 7) == []
    assert only_at_least([5, 0], 6) == []
    assert only_at_least([9, 2], 6) == [9]
