from handycounts import num_greater


def test_num_greater_more_1():
    assert num_greater([4, 5, 2, 7, 0], 4) == 2


def test_num_greater_more_2():
    assert num_greater([2, 6, 9, 8, 3], 6) == 2
