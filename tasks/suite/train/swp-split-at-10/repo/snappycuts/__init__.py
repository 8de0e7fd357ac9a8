"""Splitting lists in two."""


def split_at(values, pos):
    """(values before index pos, values from index pos on)."""
    return values[pos:], values[:pos]


def two_halves(values):
    """Split in the middle; the first part is the shorter one."""
    return split_at(values, len(values) // 2)
