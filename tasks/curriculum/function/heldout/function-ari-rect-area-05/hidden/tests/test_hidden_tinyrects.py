from tinyrects import rect_area


def test_rect_area_more_1():
    assert rect_area(1, 1) == 1


def test_rect_area_more_2():
    assert rect_area(2, 5) == 10
