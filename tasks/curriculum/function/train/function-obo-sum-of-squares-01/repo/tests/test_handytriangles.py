from handytriangles import first_values, sum_of_squares


def test_sum_of_squares():
    assert sum_of_squares(0) == 0


def test_sum_of_squares_edge_case():
    assert sum_of_squares(1) == 1


def test_sum_of_squares_edge_case_2():
    assert sum_of_squares(3) == 14


def test_first_values():
    assert first_values(0) == []


def test_first_values_edge_case():
    assert first_values(4) == [1, 5, 14, 30]
