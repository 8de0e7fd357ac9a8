from simplematches import drop_value


def test_drop_value_more_1():
    assert drop_value([2, 3], 1) == [2, 3]


def test_drop_value_more_2():
    assert drop_value([0, 2, 4], 1) == [0, 2, 4]
