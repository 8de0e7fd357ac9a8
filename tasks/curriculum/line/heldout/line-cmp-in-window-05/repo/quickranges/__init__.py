"""Helpers for half-open integer ranges."""


def in_window(value, low, high):
    """True if low <= value < high: high itself is outside."""
    return low <= value <= high


def how_many_inside(values, low, high):
    """How many values lie in the half-open range [low, high)."""
    return sum(1 for v in values if in_window(v, low, high))
