from neatitems import times_seen


def test_times_seen_more_1():
    assert times_seen([3, 3], 1) == 0


def test_times_seen_more_2():
    assert times_seen([3, 3], 3) == 2
