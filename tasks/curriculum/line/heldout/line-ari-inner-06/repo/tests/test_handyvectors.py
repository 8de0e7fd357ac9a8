from handyvectors import inner, sum_of_squares


def test_inner():
    assert inner([2, 2], [2, 2]) == 8
    assert inner([], []) == 0
    assert inner([2, 2], [3, 1]) == 8


def test_inner_edge_case():
    assert inner([2, 4, 1], [4, 2, 5]) == 21


def test_inner_edge_case_2():
    assert inner([0, 5, 5], [4, 2, 5]) == 35


def test_sum_of_squares():
    assert sum_of_squares([]) == 0
    assert sum_of_squares([2, 2, 2]) == 12
    assert sum_of_squares([2, 2]) == 8


def test_sum_of_squares_edge_case():
    assert sum_of_squares([0, 5, 5]) == 50
