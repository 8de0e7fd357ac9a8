from microyears import days_in_year, is_leap_year


def test_is_leap_year():
    assert is_leap_year(2019) is False
    assert is_leap_year(2023) is False
    assert is_leap_year(1999) is False


def test_is_leap_year_edge_case():
    assert is_leap_year(2024) is True


def test_is_leap_year_edge_case_2():
    assert is_leap_year(2020) is True


def test_days_in_year():
    assert days_in_year(1999) == 365
    assert days_in_year(2000) == 366
    assert days_in_year(2019) == 365


def test_days_in_year_edge_case():
    assert days_in_year(2020) == 366
