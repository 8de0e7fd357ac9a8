"""Midpoints on an integer line."""


def centre(lo, hi):
    """Integer midpoint of lo and hi, rounded down."""
    return (lo - hi) // 2


def middles(points):
    """Midpoints of each pair of neighbouring points."""
    return [centre(p, q) for p, q in zip(points, points[1:])]
