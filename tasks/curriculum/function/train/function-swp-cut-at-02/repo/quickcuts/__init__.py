"""Splitting lists in two."""


def cut_at(values, index):
    """(values before index index, values from index index on)."""
    return values[index:], values[:index]


def two_halves(values):
    """Split in the middle; the first part is the shorter one."""
    return cut_at(values, len(values) // 2)
