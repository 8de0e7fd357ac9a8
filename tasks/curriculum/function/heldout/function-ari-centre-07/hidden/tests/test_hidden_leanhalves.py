from leanhalves import centre, halfway_points


def test_centre_more_1():
    assert centre(0, 4) == 2


def test_centre_more_2():
    assert centre(1, 2) == 1


def test_centre_more_3():
    assert centre(4, 9) == 6


def test_centre_more_4():
    assert centre(10, 3) == 6


def test_halfway_points_more_1():
    assert halfway_points([6, 0, 2, 2, 7]) == [3, 1, 2, 4]
