from quickheads import double, head, skip


def test_head():
    assert head([1, 8, 0, 9], 1) == [1]
    assert head([], 0) == []
    assert head([8, 3, 8, 4, 8], 3) == [8, 3, 8]


def test_skip():
    assert skip([7, 4, 2], 3) == []
    assert skip([], 1) == []
    assert skip([], 3) == []


def test_skip_edge_case():
    assert skip([8, 3, 8, 4, 8], 3) == [4, 8]


def test_skip_edge_case_2():
    assert skip([8, 3, 8, 4, 8], 1) == [3, 8, 4, 8]


def test_double():
    assert double(-3) == -6
    assert double(1) == 2
    assert double(4) == 8
