from littlecentres import midpoint, midpoints


def test_midpoint_more_1():
    assert midpoint(2, 8) == 5


def test_midpoint_more_2():
    assert midpoint(4, 9) == 6


def test_midpoint_more_3():
    assert midpoint(-3, 0) == -2


def test_midpoints_more_1():
    assert midpoints([2, 6, 10]) == [4, 8]


def test_midpoints_more_2():
    assert midpoints([6, 5, 8]) == [5, 6]
