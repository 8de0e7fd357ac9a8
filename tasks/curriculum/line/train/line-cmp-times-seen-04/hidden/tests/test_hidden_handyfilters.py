from handyfilters import times_seen


def test_times_seen_more_1():
    assert times_seen([3, 0, 2, 0, 4, 1], 1) == 1


def test_times_seen_more_2():
    assert times_seen([0, 1, 1], 1) == 2
