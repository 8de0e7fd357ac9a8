from simplematches import double, drop_value, occurrences


def test_occurrences():
    assert occurrences([0, 2, 4], 3) == 0
    assert occurrences([], 3) == 0
    assert occurrences([], 1) == 0


def test_drop_value():
    assert drop_value([], 1) == []
    assert drop_value([], 3) == []


def test_drop_value_edge_case():
    assert drop_value([4, 4, 2, 1], 1) == [4, 4, 2]


def test_drop_value_edge_case_2():
    assert drop_value([1, 3], 3) == [1]


def test_double():
    assert double(-3) == -6
    assert double(1) == 2
    assert double(4) == 8
