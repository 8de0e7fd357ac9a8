from minitriangles import series, sum_to


def test_sum_to_more_1():
    assert sum_to(3) == 6


def test_sum_to_more_2():
    assert sum_to(4) == 10


def test_series_more_1():
    assert series(2) == [1, 3]
