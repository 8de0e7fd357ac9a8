from tinytrack import first_or_none, offset, offsets


def test_first_or_none():
    assert first_or_none([9]) == 9
    assert first_or_none([4, 5]) == 4
    assert first_or_none([]) is None


def test_offset():
    assert offset(3, 3) == 0
    assert offset(0, 0) == 0


def test_offset_edge_case():
    assert offset(0, 8) == 8


def test_offset_edge_case_2():
    assert offset(0, 12) == 12


def test_offsets():
    assert offsets(3, []) == []
    assert offsets(0, []) == []
