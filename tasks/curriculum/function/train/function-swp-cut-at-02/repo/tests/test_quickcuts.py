from quickcuts import cut_at, two_halves


def test_cut_at():
    assert cut_at([], 2) == ([], [])
    assert cut_at([], 0) == ([], [])
    assert cut_at([], 3) == ([], [])


def test_cut_at_edge_case():
    assert cut_at([7, 3, 7], 2) == ([7, 3], [7])


def test_cut_at_edge_case_2():
    assert cut_at([7, 3, 7], 1) == ([7], [3, 7])


def test_two_halves():
    assert two_halves([]) == ([], [])


def test_two_halves_edge_case():
    assert two_halves([7, 3, 7]) == ([7], [3, 7])
