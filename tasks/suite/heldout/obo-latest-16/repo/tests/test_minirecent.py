from minirecent import latest, sum_latest


def test_latest():
    assert latest([], 0) == []


def test_latest_edge_case():
    assert latest([6, 6, 7, 6, 2], 2) == [6, 2]


def test_latest_edge_case_2():
    assert latest([1, 7, 1], 3) == [1, 7, 1]


def test_sum_latest():
    assert sum_latest([], 0) == 0
    assert sum_latest([0, 7], 2) == 7


def test_sum_latest_edge_case():
    assert sum_latest([6, 6, 7, 6, 2], 1) == 2
