from microheads import take


def test_take_more_1():
    assert take([0, 0, 5, 8], 2) == [0, 0]


def test_take_more_2():
    assert take([0, 0, 5, 8], 3) == [0, 0, 5]
