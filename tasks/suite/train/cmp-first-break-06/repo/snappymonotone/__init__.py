"""Checks on the order of a list."""


def double(x):
    """Twice x."""
    return 2 * x


def is_falling(values):
    """True if every value is strictly greater than the next one."""
    return all(a > b for a, b in zip(values, values[1:]))


def first_break(values):
    """First index i with values[i] <= values[i + 1], or -1 if there is none."""
    for i in range(len(values) - 1):
        if values[i] < values[i + 1]:
            return i
    return -1
