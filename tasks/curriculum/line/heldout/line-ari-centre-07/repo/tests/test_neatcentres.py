from neatcentres import centre, middles


def test_centre():
    assert centre(0, 0) == 0


def test_centre_edge_case():
    assert centre(2, 8) == 5


def test_centre_edge_case_2():
    assert centre(-2, 4) == 1


def test_middles():
    assert middles([4]) == []
    assert middles([]) == []
