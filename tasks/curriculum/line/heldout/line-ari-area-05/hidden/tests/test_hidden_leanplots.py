from leanplots import area


def test_area_more_1():
    assert area(3, 2) == 6


def test_area_more_2():
    assert area(1, 10) == 10
