from snappycounts import count_under, only_under


def test_count_under():
    assert count_under([], 2) == 0
    assert count_under([7, 0, 8, 4, 8, 7], 2) == 1
    assert count_under([], 5) == 0


def test_count_under_edge_case():
    assert count_under([6, 0, 0, 7], 6) == 2


def test_count_under_edge_case_2():
    assert count_under([4, 7, 6], 6) == 1


def test_only_under():
    assert only_under([], 2) == []
    assert only_under([], 5) == []
    assert only_under([6, 0, 0, 7], 5) == [0, 0]
