from microcounts import count_at_least, only_at_least


def test_count_at_least():
    assert count_at_least([0, 7], 4) == 1
    assert count_at_least([], 4) == 0
    assert count_at_least([0, 7], 3) == 1


def test_count_at_least_edge_case():
    assert count_at_least([7, 6, 3, 0, 1], 4) == 2


def test_count_at_least_edge_case_2():
    assert count_at_least([2], 5) == 0


def test_only_at_least():
    assert only_at_least([3], 3) == [3]
    assert only_at_least([], 4) == []
    assert only_at_least([7], 5) == [7]
