from easysums import first_values, sum_to


def test_sum_to_more_1():
    assert sum_to(1) == 1


def test_sum_to_more_2():
    assert sum_to(5) == 15


def test_first_values_more_1():
    assert first_values(4) == [1, 3, 6, 10]
