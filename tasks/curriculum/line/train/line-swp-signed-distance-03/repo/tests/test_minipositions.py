from minipositions import deltas_from, signed_distance


def test_signed_distance():
    assert signed_distance(0, 0) == 0
    assert signed_distance(3, 3) == 0


def test_signed_distance_edge_case():
    assert signed_distance(10, 12) == 2


def test_signed_distance_edge_case_2():
    assert signed_distance(-2, 0) == 2


def test_deltas_from():
    assert deltas_from(0, []) == []
    assert deltas_from(3, []) == []


def test_deltas_from_edge_case():
    assert deltas_from(0, [2, 12, 5]) == [2, 12, 5]
