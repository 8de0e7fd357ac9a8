from smallbounds import covers, tally_inside


def test_covers():
    assert covers(5, 2, 4) is False
    assert covers(3, 0, 5) is True
    assert covers(-1, 0, 5) is False


def test_covers_edge_case():
    assert covers(5, 0, 5) is False


def test_covers_edge_case_2():
    assert covers(4, 2, 4) is False


def test_tally_inside():
    assert tally_inside([3, 1], 0, 5) == 2
    assert tally_inside([], 0, 5) == 0
    assert tally_inside([0], 2, 4) == 0


def test_tally_inside_edge_case():
    assert tally_inside([-1, 1, 5, 1], 0, 5) == 2
