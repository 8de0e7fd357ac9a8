from easylevels import num_at_most


def test_num_at_most_more_1():
    assert num_at_most([9, 4, 1, 6, 4], 7) == 4


def test_num_at_most_more_2():
    assert num_at_most([4, 7, 5, 8, 0], 7) == 4


def test_num_at_most_more_3():
    assert num_at_most([9, 4, 1, 6, 4], 4) == 3


def test_num_at_most_more_4():
    assert num_at_most([4, 7, 5, 8, 0], 4) == 2
