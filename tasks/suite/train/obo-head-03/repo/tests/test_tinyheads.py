from tinyheads import head, skip


def test_head():
    assert head([], 2) == []
    assert head([], 3) == []
    assert head([3], 0) == []


def test_head_edge_case():
    assert head([7, 6, 3, 3, 6, 9], 3) == [7, 6, 3]


def test_head_edge_case_2():
    assert head([7, 6, 3, 3, 6, 9], 2) == [7, 6]


def test_skip():
    assert skip([7, 6, 3, 3, 6, 9], 0) == [7, 6, 3, 3, 6, 9]
    assert skip([6, 5, 1, 6, 9], 0) == [6, 5, 1, 6, 9]
    assert skip([], 1) == []
