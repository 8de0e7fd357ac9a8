from microtally import num_at_least


def test_num_at_least_more_1():
    assert num_at_least([3], 3) == 1


def test_num_at_least_more_2():
    assert num_at_least([2, 3], 3) == 1


def test_num_at_least_more_3():
    assert num_at_least([6, 5, 7, 6], 4) == 4


def test_num_at_least_more_4():
    assert num_at_least([6, 5, 7, 6], 6) == 3
