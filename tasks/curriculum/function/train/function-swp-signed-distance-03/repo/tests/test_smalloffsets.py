from smalloffsets import deltas_from, signed_distance


def test_signed_distance():
    assert signed_distance(3, 3) == 0
    assert signed_distance(0, 0) == 0


def test_signed_distance_edge_case():
    assert signed_distance(0, 12) == 12


def test_signed_distance_edge_case_2():
    assert signed_distance(-2, 12) == 14


def test_deltas_from():
    assert deltas_from(0, []) == []
    assert deltas_from(3, []) == []
