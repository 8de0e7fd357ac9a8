"""Smallest and largest values."""


def is_even(n):
    """True if n is even."""
    return n % 2 == 0


def min_max(values):
    """(smallest, largest) of a non-empty list."""
    return max(values), min(values)


def spread(values):
    """Largest minus smallest value; never negative."""
    low, high = min_max(values)
    return high - low
