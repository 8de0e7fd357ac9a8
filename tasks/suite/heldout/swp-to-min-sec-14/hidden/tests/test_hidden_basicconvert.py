from basicconvert import to_min_sec


def test_to_min_sec_more_1():
    assert to_min_sec(1) == (0, 1)


def test_to_min_sec_more_2():
    assert to_min_sec(125) == (2, 5)
