from snappycounts import count_under


def test_count_under_more_1():
    assert count_under([5], 5) == 0


def test_count_under_more_2():
    assert count_under([5, 4, 5, 5], 5) == 1
