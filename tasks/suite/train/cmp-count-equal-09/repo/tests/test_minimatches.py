from minimatches import count_equal, remove_all


def test_count_equal():
    assert count_equal([], 1) == 0
    assert count_equal([0, 3, 3, 2], 3) == 2
    assert count_equal([3, 2], 3) == 1


def test_count_equal_edge_case():
    assert count_equal([1, 1, 1, 2, 3, 1], 3) == 1


def test_count_equal_edge_case_2():
    assert count_equal([0, 3, 3, 2], 1) == 0


def test_remove_all():
    assert remove_all([0, 0], 1) == [0, 0]
    assert remove_all([3], 3) == []
    assert remove_all([0, 1, 3, 4, 1, 3], 3) == [0, 1, 4, 1]
