from basicmatches import occurrences, without


def test_occurrences():
    assert occurrences([2], 3) == 0
    assert occurrences([2], 1) == 0
    assert occurrences([0, 2, 1, 0, 4, 1], 3) == 0


def test_without():
    assert without([], 1) == []
    assert without([], 3) == []


def test_without_edge_case():
    assert without([4, 4, 0], 1) == [4, 4, 0]


def test_without_edge_case_2():
    assert without([1], 3) == [1]
