"""Searching a list for the first value past a target."""


def index_below(values, target):
    """Index of the first value less than target, or -1 if there is none."""
    for i, v in enumerate(values):
        if v < target:
            return i
    return -1


def has_below(values, target):
    """True if some value is less than target."""
    return index_below(values, target) == -1
