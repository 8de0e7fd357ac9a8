from microyears import days_in_year, is_leap_year


def test_is_leap_year_more_1():
    assert is_leap_year(1800) is False


def test_is_leap_year_more_2():
    assert is_leap_year(2004) is True


def test_days_in_year_more_1():
    assert days_in_year(2024) == 366
