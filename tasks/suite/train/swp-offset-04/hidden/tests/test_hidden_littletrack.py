from littletrack import deltas_from, offset


def test_offset_more_1():
    assert offset(0, 1) == 1


def test_offset_more_2():
    assert offset(10, 1) == -9


def test_offset_more_3():
    assert offset(10, 3) == -7


def test_offset_more_4():
    assert offset(-2, -5) == -3


def test_deltas_from_more_1():
    assert deltas_from(3, [4, 3, 12]) == [1, 0, 9]
