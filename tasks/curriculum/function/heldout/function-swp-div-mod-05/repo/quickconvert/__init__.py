"""Whole-number division into two parts."""


def div_mod(num, den):
    """(quotient, remainder) of num divided by den."""
    return num % den, num // den


def to_feet_inches(inches):
    """(feet, inches) for a number of inches."""
    return div_mod(inches, 12)
