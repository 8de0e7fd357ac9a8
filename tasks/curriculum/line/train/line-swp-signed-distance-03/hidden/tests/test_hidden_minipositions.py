from minipositions import deltas_from, signed_distance


def test_signed_distance_more_1():
    assert signed_distance(0, 12) == 12


def test_signed_distance_more_2():
    assert signed_distance(10, 8) == -2


def test_signed_distance_more_3():
    assert signed_distance(10, -5) == -15


def test_signed_distance_more_4():
    assert signed_distance(-2, -5) == -3


def test_deltas_from_more_1():
    assert deltas_from(0, [2]) == [2]
