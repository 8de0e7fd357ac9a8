from quickranges import how_many_inside, in_window


def test_in_window():
    assert in_window(-4, -3, 3) is False
    assert in_window(4, 0, 5) is True
    assert in_window(1, 2, 4) is False


def test_in_window_edge_case():
    assert in_window(3, -3, 3) is False


def test_in_window_edge_case_2():
    assert in_window(4, 2, 4) is False


def test_how_many_inside():
    assert how_many_inside([], -3, 3) == 0
    assert how_many_inside([], 0, 5) == 0
    assert how_many_inside([], 2, 4) == 0
