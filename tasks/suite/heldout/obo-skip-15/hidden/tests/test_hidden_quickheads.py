from quickheads import skip


def test_skip_more_1():
    assert skip([1, 8, 0, 9], 0) == [1, 8, 0, 9]


def test_skip_more_2():
    assert skip([1, 8, 0, 9], 3) == [9]
