"""Midpoints on an integer line."""


def head_or_none(values):
    """The first value, or None for an empty list."""
    return values[0] if values else None


def halfway(x, y):
    """Integer midpoint of x and y, rounded down."""
    return (x - y) // 2


def middles(points):
    """Midpoints of each pair of neighbouring points."""
    return [halfway(p, q) for p, q in zip(points, points[1:])]
