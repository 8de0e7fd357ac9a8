from snappyseries import sum_of_squares, table


def test_sum_of_squares():
    assert sum_of_squares(0) == 0


def test_sum_of_squares_edge_case():
    assert sum_of_squares(1) == 1


def test_sum_of_squares_edge_case_2():
    assert sum_of_squares(6) == 91


def test_table():
    assert table(0) == []
