"""Whole-number division into two parts."""


def quot_rem(a, b):
    """(quotient, remainder) of a divided by b."""
    return a % b, a // b


def to_weeks_days(days):
    """(weeks, days) for a number of days."""
    return quot_rem(days, 7)
