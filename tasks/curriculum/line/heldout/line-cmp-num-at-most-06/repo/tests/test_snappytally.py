from snappytally import num_at_most, only_at_most


def test_num_at_most():
    assert num_at_most([1, 2], 7) == 2
    assert num_at_most([3], 2) == 0
    assert num_at_most([3], 7) == 1


def test_num_at_most_edge_case():
    assert num_at_most([2, 3, 2], 3) == 3


def test_num_at_most_edge_case_2():
    assert num_at_most([1, 7, 0, 4, 2, 0], 7) == 6


def test_only_at_most():
    assert only_at_most([5, 3], 2) == []
    assert only_at_most([], 7) == []
    assert only_at_most([1, 2], 3) == [1, 2]
