from easywindows import count_inside, covers, is_even


def test_is_even():
    assert is_even(0) is True
    assert is_even(7) is False
    assert is_even(-4) is True


def test_covers():
    assert covers(0, 1, 6) is False
    assert covers(6, 3, 7) is True
    assert covers(-1, -2, 2) is True


def test_covers_edge_case():
    assert covers(1, 1, 6) is True


def test_covers_edge_case_2():
    assert covers(-2, -2, 2) is True


def test_count_inside():
    assert count_inside([], -2, 2) == 0
    assert count_inside([], 3, 7) == 0
    assert count_inside([1, 5], 3, 7) == 1
