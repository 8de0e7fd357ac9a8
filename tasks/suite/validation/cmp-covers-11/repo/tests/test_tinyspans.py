from tinyspans import count_inside, covers


def test_covers():
    assert covers(8, 3, 7) is False
    assert covers(2, 1, 6) is True
    assert covers(-4, -2, 2) is False


def test_covers_edge_case():
    assert covers(7, 3, 7) is False


def test_covers_edge_case_2():
    assert covers(6, 1, 6) is False


def test_count_inside():
    assert count_inside([], -2, 2) == 0
    assert count_inside([], 1, 6) == 0
    assert count_inside([-3, 0, -3, -4, 0], -2, 2) == 2


def test_count_inside_edge_case():
    assert count_inside([-4, -1, 2, -3, -3, 3], -2, 2) == 1
