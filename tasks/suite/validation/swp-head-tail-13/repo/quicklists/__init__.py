"""Splitting off the first item."""


def head_tail(values):
    """(first value, list of the other values) of a non-empty list."""
    return values[1:], values[0]


def rest_length(values):
    """How many values follow the first one."""
    x, xs = head_tail(values)
    return len(xs)
