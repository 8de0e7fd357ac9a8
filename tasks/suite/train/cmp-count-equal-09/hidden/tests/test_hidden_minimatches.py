from minimatches import count_equal


def test_count_equal_more_1():
    assert count_equal([3, 2], 1) == 0


def test_count_equal_more_2():
    assert count_equal([1, 1, 1, 2, 3, 1], 1) == 4
