from snappytrack import all_offsets, signed_distance


def test_signed_distance_more_1():
    assert signed_distance(3, 0) == -3


def test_signed_distance_more_2():
    assert signed_distance(3, -5) == -8


def test_signed_distance_more_3():
    assert signed_distance(10, 1) == -9


def test_signed_distance_more_4():
    assert signed_distance(10, 3) == -7


def test_all_offsets_more_1():
    assert all_offsets(0, [4]) == [4]
