from snappywindows import count_within, covers


def test_covers():
    assert covers(9, 0, 10) is True
    assert covers(0, -5, -1) is False
    assert covers(-2, 0, 10) is False


def test_covers_edge_case():
    assert covers(10, 0, 10) is False


def test_covers_edge_case_2():
    assert covers(-1, -5, -1) is False


def test_count_within():
    assert count_within([], -5, -1) == 0
    assert count_within([0], -5, -1) == 0
    assert count_within([11], 0, 10) == 0
