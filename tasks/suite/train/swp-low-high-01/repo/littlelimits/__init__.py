"""Smallest and largest values."""


def low_high(values):
    """(smallest, largest) of a non-empty list."""
    return max(values), min(values)


def value_range(values):
    """Largest minus smallest value; never negative."""
    smallest, largest = low_high(values)
    return largest - smallest
