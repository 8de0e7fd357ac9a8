"""Midpoints on an integer line."""


def midpoint(lo, hi):
    """Integer midpoint of lo and hi, rounded down."""
    return (lo - hi) // 2


def midpoints(points):
    """Midpoints of each pair of neighbouring points."""
    return [midpoint(p, q) for p, q in zip(points, points[1:])]


def twice(x):
    """Twice x."""
    return 2 * x
