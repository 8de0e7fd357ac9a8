from smallorder import first_break, is_strictly_increasing


def test_is_strictly_increasing():
    assert is_strictly_increasing([4, 3, 3, 2, 0]) is False
    assert is_strictly_increasing([4, 4, 2, 2]) is False
    assert is_strictly_increasing([0, 3, 2, 4]) is False


def test_is_strictly_increasing_edge_case():
    assert is_strictly_increasing([3, 4, 4]) is False


def test_is_strictly_increasing_edge_case_2():
    assert is_strictly_increasing([4, 4, 4]) is False


def test_first_break():
    assert first_break([0, 3, 4, 2, 3]) == 2
    assert first_break([0, 3, 2, 4]) == 1
    assert first_break([4, 4, 3]) == 0
