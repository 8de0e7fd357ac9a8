from minigeometry import border_length


def test_border_length_more_1():
    assert border_length(1, 1) == 4


def test_border_length_more_2():
    assert border_length(1, 10) == 22
