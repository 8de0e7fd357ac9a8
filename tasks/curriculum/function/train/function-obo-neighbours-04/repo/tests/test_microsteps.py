from microsteps import differences, neighbours


def test_neighbours():
    assert neighbours([5]) == []
    assert neighbours([]) == []


def test_neighbours_edge_case():
    assert neighbours([6, 5, 1]) == [(6, 5), (5, 1)]


def test_neighbours_edge_case_2():
    assert neighbours([0, 4, 9, 0]) == [(0, 4), (4, 9), (9, 0)]


def test_differences():
    assert differences([5]) == []
    assert differences([]) == []
