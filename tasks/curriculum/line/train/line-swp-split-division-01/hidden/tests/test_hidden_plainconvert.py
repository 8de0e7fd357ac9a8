from plainconvert import minutes_seconds, split_division


def test_split_division_more_1():
    assert split_division(1, 5) == (0, 1)


def test_split_division_more_2():
    assert split_division(7, 5) == (1, 2)


def test_minutes_seconds_more_1():
    assert minutes_seconds(1) == (0, 1)
