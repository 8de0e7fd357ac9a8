from tinytrack import offset, offsets


def test_offset_more_1():
    assert offset(3, 1) == -2


def test_offset_more_2():
    assert offset(3, -5) == -8


def test_offset_more_3():
    assert offset(10, 1) == -9


def test_offset_more_4():
    assert offset(10, 8) == -2


def test_offsets_more_1():
    assert offsets(0, [4, 10]) == [4, 10]
