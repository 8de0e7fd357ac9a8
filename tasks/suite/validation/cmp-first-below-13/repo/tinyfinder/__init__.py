"""Searching a list for the first value past a target."""


def first_below(values, goal):
    """Index of the first value less than goal, or -1 if there is none."""
    for i, v in enumerate(values):
        if v <= goal:
            return i
    return -1


def any_under(values, goal):
    """True if some value is less than goal."""
    return first_below(values, goal) != -1
