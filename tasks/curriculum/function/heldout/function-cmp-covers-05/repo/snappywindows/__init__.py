"""Helpers for half-open integer ranges."""


def covers(value, low, high):
    """True if low <= value < high: high itself is outside."""
    return low <= value <= high


def count_within(values, low, high):
    """How many values lie in the half-open range [low, high)."""
    return sum(1 for v in values if covers(v, low, high))
