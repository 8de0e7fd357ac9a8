from simplepartition import cut_at, halves


def test_cut_at():
    assert cut_at([], 0) == ([], [])
    assert cut_at([], 2) == ([], [])
    assert cut_at([], 1) == ([], [])


def test_cut_at_edge_case():
    assert cut_at([3, 0, 6], 3) == ([3, 0, 6], [])


def test_cut_at_edge_case_2():
    assert cut_at([2], 3) == ([2], [])


def test_halves():
    assert halves([]) == ([], [])


def test_halves_edge_case():
    assert halves([3, 0, 6]) == ([3], [0, 6])
