from neatitems import strip_value, times_seen


def test_times_seen():
    assert times_seen([], 3) == 0
    assert times_seen([], 1) == 0


def test_times_seen_edge_case():
    assert times_seen([4, 2, 0, 0], 1) == 0


def test_times_seen_edge_case_2():
    assert times_seen([0, 2, 0, 0, 2, 0], 3) == 0


def test_strip_value():
    assert strip_value([0, 2, 0, 0, 2, 0], 3) == [0, 2, 0, 0, 2, 0]
    assert strip_value([4, 4, 0, 4, 3, 3], 1) == [4, 4, 0, 4, 3, 3]
    assert strip_value([3, 3], 3) == []
