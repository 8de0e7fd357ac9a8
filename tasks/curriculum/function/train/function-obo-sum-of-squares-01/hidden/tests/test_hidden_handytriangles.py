from handytriangles import first_values, sum_of_squares


def test_sum_of_squares_more_1():
    assert sum_of_squares(2) == 5


def test_sum_of_squares_more_2():
    assert sum_of_squares(4) == 30


def test_first_values_more_1():
    assert first_values(2) == [1, 5]
