from microheads import skip, take


def test_take():
    assert take([], 0) == []
    assert take([], 1) == []
    assert take([6], 2) == [6]


def test_take_edge_case():
    assert take([0, 0, 5, 8], 1) == [0]


def test_take_edge_case_2():
    assert take([5, 0, 9, 1], 3) == [5, 0, 9]


def test_skip():
    assert skip([], 0) == []
    assert skip([6], 3) == []
    assert skip([0, 0, 5, 8], 2) == [5, 8]
