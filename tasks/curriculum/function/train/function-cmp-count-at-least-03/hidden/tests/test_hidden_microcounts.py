from microcounts import count_at_least


def test_count_at_least_more_1():
    assert count_at_least([3, 4, 3], 3) == 3


def test_count_at_least_more_2():
    assert count_at_least([1, 3, 3, 3, 2, 3], 3) == 4


def test_count_at_least_more_3():
    assert count_at_least([7, 6, 3, 0, 1], 3) == 3


def test_count_at_least_more_4():
    assert count_at_least([3], 5) == 0
