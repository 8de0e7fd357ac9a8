from snappycuts import split_at, two_halves


def test_split_at_more_1():
    assert split_at([5, 8, 4, 3], 0) == ([], [5, 8, 4, 3])


def test_split_at_more_2():
    assert split_at([3, 2, 2, 0, 9], 3) == ([3, 2, 2], [0, 9])


def test_two_halves_more_1():
    assert two_halves([3, 2, 2, 0, 9]) == ([3, 2], [2, 0, 9])
