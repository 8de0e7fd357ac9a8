from simplepartition import cut_at, halves


def test_cut_at_more_1():
    assert cut_at([3, 0, 6], 0) == ([], [3, 0, 6])


def test_cut_at_more_2():
    assert cut_at([3, 0, 6], 2) == ([3, 0], [6])


def test_halves_more_1():
    assert halves([8, 1]) == ([8], [1])
