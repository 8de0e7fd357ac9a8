from snappyfilters import occurrences


def test_occurrences_more_1():
    assert occurrences([0, 0, 1], 1) == 1


def test_occurrences_more_2():
    assert occurrences([2, 3, 0, 2], 3) == 1
