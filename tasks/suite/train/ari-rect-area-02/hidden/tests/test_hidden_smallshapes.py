from smallshapes import rect_area


def test_rect_area_more_1():
    assert rect_area(2, 5) == 10


def test_rect_area_more_2():
    assert rect_area(7, 3) == 21
