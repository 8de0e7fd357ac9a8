from plainrects import rect_area


def test_rect_area_more_1():
    assert rect_area(1, 10) == 10


def test_rect_area_more_2():
    assert rect_area(6, 0) == 0
