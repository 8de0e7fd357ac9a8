from littlepartition import cut_at, halves


def test_cut_at():
    assert cut_at([], 1) == ([], [])
    assert cut_at([], 2) == ([], [])
    assert cut_at([], 0) == ([], [])


def test_cut_at_edge_case():
    assert cut_at([8, 7], 3) == ([8, 7], [])


def test_cut_at_edge_case_2():
    assert cut_at([8, 7], 2) == ([8, 7], [])


def test_halves():
    assert halves([]) == ([], [])


def test_halves_edge_case():
    assert halves([8, 7]) == ([8], [7])
