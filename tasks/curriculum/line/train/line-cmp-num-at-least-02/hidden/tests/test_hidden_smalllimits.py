from smalllimits import num_at_least


def test_num_at_least_more_1():
    assert num_at_least([7, 6, 2], 7) == 1


def test_num_at_least_more_2():
    assert num_at_least([7, 4], 7) == 1
