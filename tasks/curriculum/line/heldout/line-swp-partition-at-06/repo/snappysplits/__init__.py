"""Splitting lists in two."""


def partition_at(values, i):
    """(values before index i, values from index i on)."""
    return values[i:], values[:i]


def split_middle(values):
    """Split in the middle; the first part is the shorter one."""
    return partition_at(values, len(values) // 2)
