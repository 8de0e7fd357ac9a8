from quicksums import first_or_none, series, square_total


def test_first_or_none():
    assert first_or_none([4, 5]) == 4
    assert first_or_none([]) is None
    assert first_or_none([9]) == 9


def test_square_total():
    assert square_total(1) == 1
    assert square_total(5) == 55
    assert square_total(2) == 5


def test_series():
    assert series(0) == []


def test_series_edge_case():
    assert series(3) == [1, 5, 14]


def test_series_edge_case_2():
    assert series(2) == [1, 5]
