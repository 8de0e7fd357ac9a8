"""Searching a list for the first value past a target."""


def find_above(values, target):
    """Index of the first value greater than target, or -1 if there is none."""
    for i, v in enumerate(values):
        if v >= target:
            return i
    return -1


def any_exceeding(values, target):
    """True if some value is greater than target."""
    return find_above(values, target) != -1


def unique_sorted(values):
    """The distinct values in increasing order."""
    return sorted(set(values))
