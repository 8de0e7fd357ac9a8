from littlecentres import midpoint, midpoints, twice


def test_midpoint():
    assert midpoint(0, 0) == 0


def test_midpoint_edge_case():
    assert midpoint(6, 6) == 6


def test_midpoint_edge_case_2():
    assert midpoint(0, 4) == 2


def test_midpoints():
    assert midpoints([]) == []
    assert midpoints([9]) == []
    assert midpoints([5]) == []


def test_twice():
    assert twice(0) == 0
    assert twice(-3) == -6
    assert twice(4) == 8
