from snappymonotone import first_break


def test_first_break_more_1():
    assert first_break([3, 2, 2, 1, 0]) == 1


def test_first_break_more_2():
    assert first_break([2, 2, 3]) == 0
