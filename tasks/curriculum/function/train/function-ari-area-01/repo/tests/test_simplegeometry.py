from simplegeometry import area, border_length


def test_area():
    assert area(0, 0) == 0
    assert area(2, 2) == 4


def test_area_edge_case():
    assert area(1, 10) == 10


def test_area_edge_case_2():
    assert area(2, 5) == 10


def test_border_length():
    assert border_length(2, 5) == 14
    assert border_length(4, 4) == 16
    assert border_length(6, 0) == 12
