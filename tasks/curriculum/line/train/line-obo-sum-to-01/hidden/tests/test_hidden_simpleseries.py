from simpleseries import sum_to, table


def test_sum_to_more_1():
    assert sum_to(1) == 1


def test_sum_to_more_2():
    assert sum_to(5) == 15


def test_table_more_1():
    assert table(2) == [1, 3]
