from microtally import keep_at_least, num_at_least


def test_num_at_least():
    assert num_at_least([], 4) == 0
    assert num_at_least([], 6) == 0
    assert num_at_least([], 3) == 0


def test_num_at_least_edge_case():
    assert num_at_least([0, 1, 4], 3) == 1


def test_num_at_least_edge_case_2():
    assert num_at_least([0, 0, 5], 3) == 1


def test_keep_at_least():
    assert keep_at_least([0, 1, 4], 4) == [4]
    assert keep_at_least([0, 1, 4], 6) == []
    assert keep_at_least([], 3) == []
