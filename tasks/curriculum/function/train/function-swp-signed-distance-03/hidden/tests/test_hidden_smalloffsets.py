from smalloffsets import deltas_from, signed_distance


def test_signed_distance_more_1():
    assert signed_distance(3, 0) == -3


def test_signed_distance_more_2():
    assert signed_distance(10, 8) == -2


def test_signed_distance_more_3():
    assert signed_distance(10, -5) == -15


def test_signed_distance_more_4():
    assert signed_distance(-2, 0) == 2


def test_deltas_from_more_1():
    assert deltas_from(3, [-3, 1]) == [-6, -2]
