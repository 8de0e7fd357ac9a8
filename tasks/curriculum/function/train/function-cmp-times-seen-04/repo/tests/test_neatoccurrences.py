from neatoccurrences import times_seen, without


def test_times_seen():
    assert times_seen([2, 1], 1) == 1
    assert times_seen([], 3) == 0
    assert times_seen([1, 0], 1) == 1


def test_times_seen_edge_case():
    assert times_seen([4, 3, 2, 2, 4], 3) == 1


def test_times_seen_edge_case_2():
    assert times_seen([4, 3, 2, 2, 4], 1) == 0


def test_without():
    assert without([0, 0], 1) == [0, 0]
    assert without([], 1) == []
    assert without([0, 2, 0, 4, 1], 3) == [0, 2, 0, 4, 1]
