from littlelevels import keep_at_most, num_at_most


def test_num_at_most():
    assert num_at_most([], 6) == 0
    assert num_at_most([2, 2, 6, 7], 4) == 2
    assert num_at_most([], 7) == 0


def test_num_at_most_edge_case():
    assert num_at_most([6, 1, 5, 7, 7, 5], 4) == 1


def test_num_at_most_edge_case_2():
    assert num_at_most([6], 4) == 0


def test_keep_at_most():
    assert keep_at_most([5], 6) == [5]
    assert keep_at_most([2, 2, 3, 9, 5], 7) == [2, 2, 3, 5]
    assert keep_at_most([6], 7) == [6]
