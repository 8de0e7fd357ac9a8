from snappyseries import sum_of_squares, table


def test_sum_of_squares_more_1():
    assert sum_of_squares(4) == 30


def test_sum_of_squares_more_2():
    assert sum_of_squares(5) == 55


def test_table_more_1():
    assert table(2) == [1, 5]
