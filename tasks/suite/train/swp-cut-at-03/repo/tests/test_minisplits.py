from minisplits import cut_at, split_middle, twice


def test_cut_at():
    assert cut_at([], 3) == ([], [])
    assert cut_at([], 2) == ([], [])
    assert cut_at([], 0) == ([], [])


def test_cut_at_edge_case():
    assert cut_at([3, 1], 3) == ([3, 1], [])


def test_cut_at_edge_case_2():
    assert cut_at([3, 1], 0) == ([], [3, 1])


def test_split_middle():
    assert split_middle([]) == ([], [])


def test_twice():
    assert twice(0) == 0
    assert twice(-3) == -6
    assert twice(4) == 8
