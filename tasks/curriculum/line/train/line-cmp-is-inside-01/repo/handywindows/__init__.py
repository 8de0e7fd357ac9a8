"""Helpers for half-open integer ranges."""


def is_inside(x, lo, hi):
    """True if lo <= x < hi: hi itself is outside."""
    return lo <= x <= hi


def tally_inside(values, lo, hi):
    """How many values lie in the half-open range [lo, hi)."""
    return sum(1 for v in values if is_inside(v, lo, hi))
