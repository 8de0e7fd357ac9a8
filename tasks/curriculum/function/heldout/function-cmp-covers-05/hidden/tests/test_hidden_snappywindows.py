from snappywindows import count_within, covers


def test_covers_more_1():
    assert covers(0, 0, 10) is True


def test_covers_more_2():
    assert covers(6, 4, 6) is False


def test_count_within_more_1():
    assert count_within([3, 2, 7, 6, 4, 7], 4, 6) == 1


def test_count_within_more_2():
    assert count_within([-5, -5, -4, -7], -5, -1) == 3
