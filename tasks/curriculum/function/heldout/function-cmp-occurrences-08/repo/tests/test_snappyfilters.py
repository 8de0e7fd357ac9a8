from snappyfilters import occurrences, without


def test_occurrences():
    assert occurrences([3, 2], 3) == 1
    assert occurrences([], 1) == 0
    assert occurrences([], 3) == 0


def test_occurrences_edge_case():
    assert occurrences([2, 3, 0, 2], 1) == 0


def test_occurrences_edge_case_2():
    assert occurrences([4, 4, 2, 4, 3, 2], 3) == 1


def test_without():
    assert without([0, 0, 1], 3) == [0, 0, 1]
    assert without([4, 4, 2, 4, 3, 2], 3) == [4, 4, 2, 4, 2]
    assert without([4, 0, 3, 2], 3) == [4, 0, 2]
