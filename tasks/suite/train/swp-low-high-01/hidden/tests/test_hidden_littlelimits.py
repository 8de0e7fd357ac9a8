from littlelimits import low_high, value_range


def test_low_high_more_1():
    assert low_high([9, 8, 0]) == (0, 9)


def test_low_high_more_2():
    assert low_high([7, 9, 2]) == (2, 9)


def test_low_high_more_3():
    assert low_high([7, 4, 8, 4]) == (4, 8)


def test_value_range_more_1():
    assert value_range([7, 4, 8, 4]) == 4
