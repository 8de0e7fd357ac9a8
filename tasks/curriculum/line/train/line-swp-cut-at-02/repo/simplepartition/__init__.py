"""Splitting lists in two."""


def cut_at(values, i):
    """(values before index i, values from index i on)."""
    return values[i:], values[:i]


def halves(values):
    """Split in the middle; the first part is the shorter one."""
    return cut_at(values, len(values) // 2)
