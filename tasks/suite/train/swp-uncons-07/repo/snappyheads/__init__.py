"""Splitting off the first item."""


def double(x):
    """Twice x."""
    return 2 * x


def uncons(values):
    """(first value, list of the other values) of a non-empty list."""
    return values[1:], values[0]


def rest_length(values):
    """How many values follow the first one."""
    first, rest = uncons(values)
    return len(rest)
