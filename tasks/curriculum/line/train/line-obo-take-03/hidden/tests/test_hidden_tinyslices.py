from tinyslices import take


def test_take_more_1():
    assert take([0, 4, 8, 6, 3, 5], 0) == []


def test_take_more_2():
    assert take([0, 4, 8, 6, 3, 5], 3) == [0, 4, 8]
