from tinydivision import quot_rem, to_weeks_days


def test_quot_rem_more_1():
    assert quot_rem(7, 12) == (0, 7)


def test_quot_rem_more_2():
    assert quot_rem(100, 5) == (20, 0)


def test_to_weeks_days_more_1():
    assert to_weeks_days(6) == (0, 6)
