from littlepartition import cut_at, halves


def test_cut_at_more_1():
    assert cut_at([3, 1], 0) == ([], [3, 1])


def test_cut_at_more_2():
    assert cut_at([8, 7], 0) == ([], [8, 7])


def test_halves_more_1():
    assert halves([3, 1]) == ([3], [1])
