from snappymonotone import double, first_break, is_falling


def test_double():
    assert double(0) == 0
    assert double(4) == 8
    assert double(1) == 2


def test_is_falling():
    assert is_falling([4, 3, 1]) is True
    assert is_falling([0, 0]) is False
    assert is_falling([4, 4, 4, 2, 0]) is False


def test_first_break():
    assert first_break([3]) == -1
    assert first_break([2, 4, 4, 6]) == 0
    assert first_break([4, 3, 1]) == -1


def test_first_break_edge_case():
    assert first_break([4, 4, 4]) == 0


def test_first_break_edge_case_2():
    assert first_break([4, 4, 2, 2]) == 0
