"""Helpers for half-open integer ranges."""


def is_even(n):
    """True if n is even."""
    return n % 2 == 0


def covers(x, lo, hi):
    """True if lo <= x < hi: hi itself is outside."""
    return lo < x < hi


def count_inside(values, lo, hi):
    """How many values lie in the half-open range [lo, hi)."""
    return sum(1 for v in values if covers(v, lo, hi))
