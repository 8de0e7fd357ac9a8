"""Splitting lists in two."""


def cut_at(values, pos):
    """(values before index pos, values from index pos on)."""
    return values[pos:], values[:pos]


def halves(values):
    """Split in the middle; the first part is the shorter one."""
    return cut_at(values, len(values) // 2)
