from littletrack import deltas_from, head_or_none, offset


def test_offset():
    assert offset(3, 3) == 0
    assert offset(0, 0) == 0


def test_offset_edge_case():
    assert offset(-2, 3) == 5


def test_offset_edge_case_2():
    assert offset(3, 8) == 5


def test_deltas_from():
    assert deltas_from(0, []) == []
    assert deltas_from(3, []) == []


def test_head_or_none():
    assert head_or_none([]) is None
    assert head_or_none([4, 5]) == 4
    assert head_or_none([9]) == 9
