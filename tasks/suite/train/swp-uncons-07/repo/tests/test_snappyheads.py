from snappyheads import double, uncons


def test_double():
    assert double(1) == 2
    assert double(-3) == -6
    assert double(0) == 0


def test_uncons_edge_case():
    assert uncons([3]) == (3, [])


def test_uncons_edge_case_2():
    assert uncons([3, 8, 0, 2, 1]) == (3, [8, 0, 2, 1])
