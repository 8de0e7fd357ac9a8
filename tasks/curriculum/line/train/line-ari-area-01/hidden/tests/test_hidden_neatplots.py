from neatplots import area


def test_area_more_1():
    assert area(1, 1) == 1


def test_area_more_2():
    assert area(6, 0) == 0
