from handywindows import is_inside, tally_inside


def test_is_inside():
    assert is_inside(2, 0, 5) is True
    assert is_inside(-1, -3, 3) is True
    assert is_inside(-1, 0, 5) is False


def test_is_inside_edge_case():
    assert is_inside(3, -3, 3) is False


def test_is_inside_edge_case_2():
    assert is_inside(4, 2, 4) is False


def test_tally_inside():
    assert tally_inside([], 0, 5) == 0
    assert tally_inside([3], 2, 4) == 1
    assert tally_inside([], 2, 4) == 0


def test_tally_inside_edge_case():
    assert tally_inside([3, 5], 0, 5) == 1
