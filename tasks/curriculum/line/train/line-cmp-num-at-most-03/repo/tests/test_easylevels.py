from easylevels import num_at_most, only_at_most


def test_num_at_most():
    assert num_at_most([], 4) == 0
    assert num_at_most([9, 5], 7) == 1
    assert num_at_most([], 7) == 0


def test_num_at_most_edge_case():
    assert num_at_most([8], 7) == 0


def test_num_at_most_edge_case_2():
    assert num_at_most([6], 4) == 0


def test_only_at_most():
    assert only_at_most([5, 7], 4) == []
    assert only_at_most([5, 7], 7) == [5, 7]
    assert only_at_most([], 7) == []
