from neatcentres import centre, middles


def test_centre_more_1():
    assert centre(0, 4) == 2


def test_centre_more_2():
    assert centre(3, 5) == 4


def test_centre_more_3():
    assert centre(1, 2) == 1


def test_centre_more_4():
    assert centre(10, 3) == 6


def test_middles_more_1():
    assert middles([2, 6, 10]) == [4, 8]
