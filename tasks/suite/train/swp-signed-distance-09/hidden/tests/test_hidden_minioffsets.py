from minioffsets import offsets, signed_distance


def test_signed_distance_more_1():
    assert signed_distance(3, 0) == -3


def test_signed_distance_more_2():
    assert signed_distance(3, 1) == -2


def test_signed_distance_more_3():
    assert signed_distance(10, 0) == -10


def test_signed_distance_more_4():
    assert signed_distance(10, -5) == -15


def test_offsets_more_1():
    assert offsets(3, [3, 3, 7, 12]) == [0, 0, 4, 9]
