from quickcuts import cut_at, two_halves


def test_cut_at_more_1():
    assert cut_at([2], 1) == ([2], [])


def test_cut_at_more_2():
    assert cut_at([2], 2) == ([2], [])


def test_two_halves_more_1():
    assert two_halves([0, 0, 3, 3, 8]) == ([0, 0], [3, 3, 8])
