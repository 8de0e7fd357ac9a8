from snappycuts import split_at, two_halves


def test_split_at():
    assert split_at([], 1) == ([], [])
    assert split_at([], 3) == ([], [])
    assert split_at([], 2) == ([], [])


def test_split_at_edge_case():
    assert split_at([5, 8, 4, 3], 1) == ([5], [8, 4, 3])


def test_split_at_edge_case_2():
    assert split_at([3, 2, 2, 0, 9], 2) == ([3, 2], [2, 0, 9])


def test_two_halves():
    assert two_halves([]) == ([], [])
