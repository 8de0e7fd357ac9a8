from littlelevels import num_at_most


def test_num_at_most_more_1():
    assert num_at_most([6, 3, 0, 0, 4], 6) == 5


def test_num_at_most_more_2():
    assert num_at_most([2, 2, 6, 7], 6) == 3


def test_num_at_most_more_3():
    assert num_at_most([5], 7) == 1


def test_num_at_most_more_4():
    assert num_at_most([6, 3, 0, 0, 4], 4) == 4
