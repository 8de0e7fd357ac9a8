from minitriangles import series, sum_to


def test_sum_to():
    assert sum_to(0) == 0


def test_sum_to_edge_case():
    assert sum_to(5) == 15


def test_sum_to_edge_case_2():
    assert sum_to(2) == 3


def test_series():
    assert series(0) == []


def test_series_edge_case():
    assert series(3) == [1, 3, 6]
