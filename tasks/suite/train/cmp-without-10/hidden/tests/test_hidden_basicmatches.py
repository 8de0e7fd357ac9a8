from basicmatches import without


def test_without_more_1():
    assert without([0], 1) == [0]


def test_without_more_2():
    assert without([0, 0, 4, 4], 1) == [0, 0, 4, 4]
