from easybounds import in_range, tally_inside


def test_in_range():
    assert in_range(8, 3, 7) is False
    assert in_range(4, 1, 6) is True
    assert in_range(1, -2, 2) is True


def test_in_range_edge_case():
    assert in_range(2, -2, 2) is False


def test_in_range_edge_case_2():
    assert in_range(7, 3, 7) is False


def test_tally_inside():
    assert tally_inside([0, -4], -2, 2) == 1
    assert tally_inside([], -2, 2) == 0
    assert tally_inside([], 1, 6) == 0


def test_tally_inside_edge_case():
    assert tally_inside([3, -1, 2, 1, 3], -2, 2) == 2
