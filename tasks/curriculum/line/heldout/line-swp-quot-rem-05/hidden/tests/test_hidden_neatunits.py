from neatunits import minutes_seconds, quot_rem


def test_quot_rem_more_1():
    assert quot_rem(1, 5) == (0, 1)


def test_quot_rem_more_2():
    assert quot_rem(7, 12) == (0, 7)


def test_minutes_seconds_more_1():
    assert minutes_seconds(125) == (2, 5)
