"""Helpers for half-open integer ranges."""


def in_range(n, start, stop):
    """True if start <= n < stop: stop itself is outside."""
    return start <= n <= stop


def tally_inside(values, start, stop):
    """How many values lie in the half-open range [start, stop)."""
    return sum(1 for v in values if in_range(v, start, stop))
