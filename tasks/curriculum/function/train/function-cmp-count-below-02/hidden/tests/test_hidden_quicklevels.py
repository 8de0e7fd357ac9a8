from quicklevels import count_below


def test_count_below_more_1():
    assert count_below([6], 6) == 0


def test_count_below_more_2():
    assert count_below([1, 5, 1, 2, 1, 4], 4) == 4
