"""Midpoints on an integer line."""


def halfway(lo, hi):
    """Integer midpoint of lo and hi, rounded down."""
    return (lo - hi) // 2


def midpoints(points):
    """Midpoints of each pair of neighbouring points."""
    return [halfway(p, q) for p, q in zip(points, points[1:])]
