from quicksums import series


def test_series_more_1():
    assert series(1) == [1]


def test_series_more_2():
    assert series(4) == [1, 5, 14, 30]
