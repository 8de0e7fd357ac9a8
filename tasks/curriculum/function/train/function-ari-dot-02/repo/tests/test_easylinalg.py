from easylinalg import dot, sum_of_squares


def test_dot():
    assert dot([], []) == 0
    assert dot([2, 2], [2, 2]) == 8


def test_dot_edge_case():
    assert dot([5, 1], [2, 2]) == 12


def test_dot_edge_case_2():
    assert dot([2, 3, 5], [3, 4, 2]) == 28


def test_sum_of_squares():
    assert sum_of_squares([]) == 0
    assert sum_of_squares([2, 2]) == 8
