from handyfilters import strip_value, times_seen


def test_times_seen():
    assert times_seen([1, 1, 2, 0, 3, 1], 1) == 3
    assert times_seen([], 1) == 0
    assert times_seen([], 3) == 0


def test_times_seen_edge_case():
    assert times_seen([3, 2], 1) == 0


def test_times_seen_edge_case_2():
    assert times_seen([0], 3) == 0


def test_strip_value():
    assert strip_value([1, 1, 2, 0, 3, 1], 1) == [2, 0, 3]
    assert strip_value([0, 1, 1], 3) == [0, 1, 1]
    assert strip_value([1], 3) == [1]
