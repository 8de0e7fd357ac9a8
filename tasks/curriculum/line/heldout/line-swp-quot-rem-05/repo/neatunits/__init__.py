"""Whole-number division into two parts."""


def quot_rem(a, b):
    """(quotient, remainder) of a divided by b."""
    return a % b, a // b


def minutes_seconds(seconds):
    """(minutes, seconds) for a number of seconds."""
    return quot_rem(seconds, 60)
