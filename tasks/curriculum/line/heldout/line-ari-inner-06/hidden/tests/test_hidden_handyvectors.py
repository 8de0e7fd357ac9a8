from handyvectors import inner, sum_of_squares


def test_inner_more_1():
    assert inner([1], [1]) == 1


def test_inner_more_2():
    assert inner([2, 2, 2], [2, 4, 1]) == 14


def test_sum_of_squares_more_1():
    assert sum_of_squares([4, 2, 5]) == 45
