"""Whole-number division into two parts."""


def quot_rem(a, b):
    """(quotient, remainder) of a divided by b."""
    return a % b, a // b


def feet_and_inches(inches):
    """(feet, inches) for a number of inches."""
    return quot_rem(inches, 12)
