"""Whole-number division into two parts."""


def split_division(num, den):
    """(quotient, remainder) of num divided by den."""
    return num % den, num // den


def minutes_seconds(seconds):
    """(minutes, seconds) for a number of seconds."""
    return split_division(seconds, 60)
