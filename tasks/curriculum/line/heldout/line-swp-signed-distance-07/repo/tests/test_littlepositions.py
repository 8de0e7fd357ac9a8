from littlepositions import all_offsets, signed_distance


def test_signed_distance():
    assert signed_distance(3, 3) == 0
    assert signed_distance(0, 0) == 0


def test_signed_distance_edge_case():
    assert signed_distance(10, 12) == 2


def test_signed_distance_edge_case_2():
    assert signed_distance(0, 1) == 1


def test_all_offsets():
    assert all_offsets(3, []) == []
    assert all_offsets(0, []) == []


def test_all_offsets_edge_case():
    assert all_offsets(0, [8, 0]) == [8, 0]
