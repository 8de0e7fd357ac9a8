from tinyrects import border_length, rect_area


def test_rect_area():
    assert rect_area(2, 2) == 4
    assert rect_area(0, 0) == 0


def test_rect_area_edge_case():
    assert rect_area(4, 4) == 16


def test_rect_area_edge_case_2():
    assert rect_area(1, 10) == 10


def test_border_length():
    assert border_length(1, 10) == 22
    assert border_length(3, 2) == 10
    assert border_length(0, 0) == 0
