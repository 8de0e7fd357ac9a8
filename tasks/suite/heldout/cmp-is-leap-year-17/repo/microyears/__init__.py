"""Leap years."""


def is_leap_year(y):
    """True for leap years: multiples of 4, except centuries not divisible by 400."""
    return y % 4 == 0 and (y % 100 == 0 or y % 400 == 0)


def days_in_year(y):
    """Number of days in y."""
    return 366 if is_leap_year(y) else 365
