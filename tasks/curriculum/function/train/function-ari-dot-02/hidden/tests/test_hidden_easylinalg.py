from easylinalg import dot, sum_of_squares


def test_dot_more_1():
    assert dot([2, 2], [5, 1]) == 12


def test_dot_more_2():
    assert dot([3, 4, 2], [3, 4, 2]) == 29


def test_sum_of_squares_more_1():
    assert sum_of_squares([3, 4, 2]) == 29
