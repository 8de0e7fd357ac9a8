from simplegeometry import area


def test_area_more_1():
    assert area(4, 4) == 16


def test_area_more_2():
    assert area(6, 0) == 0
