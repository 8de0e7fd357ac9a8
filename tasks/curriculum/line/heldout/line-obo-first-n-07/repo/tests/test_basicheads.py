from basicheads import first_n, skip


def test_first_n():
    assert first_n([], 3) == []
    assert first_n([6], 0) == []
    assert first_n([], 2) == []


def test_first_n_edge_case():
    assert first_n([6, 7, 1, 5], 2) == [6, 7]


def test_first_n_edge_case_2():
    assert first_n([2, 1, 3, 7], 0) == []


def test_skip():
    assert skip([2, 1, 3, 7], 1) == [1, 3, 7]
    assert skip([2, 1, 3, 7], 3) == [7]
    assert skip([6, 7, 1, 5], 3) == [5]
