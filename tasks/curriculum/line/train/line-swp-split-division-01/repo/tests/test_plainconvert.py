from plainconvert import minutes_seconds, split_division


def test_split_division():
    assert split_division(0, 1) == (0, 0)
    assert split_division(0, 12) == (0, 0)
    assert split_division(12, 5) == (2, 2)


def test_split_division_edge_case():
    assert split_division(25, 5) == (5, 0)


def test_split_division_edge_case_2():
    assert split_division(1, 1) == (1, 0)


def test_minutes_seconds():
    assert minutes_seconds(61) == (1, 1)
    assert minutes_seconds(0) == (0, 0)
