from neatwindows import sliding_sums


def test_sliding_sums_more_1():
    assert sliding_sums([9], 1) == [9]


def test_sliding_sums_more_2():
    assert sliding_sums([8, 8, 6, 9, 9, 6], 3) == [22, 23, 24, 24]
