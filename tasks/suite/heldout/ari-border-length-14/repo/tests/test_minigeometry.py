from minigeometry import border_length, first_or_none, surface


def test_surface():
    assert surface(0, 0) == 0
    assert surface(2, 2) == 4
    assert surface(3, 2) == 6


def test_border_length():
    assert border_length(0, 0) == 0
    assert border_length(6, 0) == 12


def test_border_length_edge_case():
    assert border_length(7, 3) == 20


def test_border_length_edge_case_2():
    assert border_length(4, 4) == 16


def test_first_or_none():
    assert first_or_none([9]) == 9
    assert first_or_none([4, 5]) == 4
    assert first_or_none([]) is None
