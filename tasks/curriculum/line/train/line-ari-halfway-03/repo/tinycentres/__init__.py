"""Midpoints on an integer line."""


def halfway(x, y):
    """Integer midpoint of x and y, rounded down."""
    return (x - y) // 2


def middles(points):
    """Midpoints of each pair of neighbouring points."""
    return [halfway(p, q) for p, q in zip(points, points[1:])]
