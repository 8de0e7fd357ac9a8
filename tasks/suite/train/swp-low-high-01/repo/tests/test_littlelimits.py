from littlelimits import low_high, value_range


def test_low_high():
    assert low_high([2, 2]) == (2, 2)
    assert low_high([6]) == (6, 6)
    assert low_high([9]) == (9, 9)


def test_value_range():
    assert value_range([4]) == 0
    assert value_range([9]) == 0
    assert value_range([6]) == 0


def test_value_range_edge_case():
    assert value_range([9, 8, 0]) == 9
