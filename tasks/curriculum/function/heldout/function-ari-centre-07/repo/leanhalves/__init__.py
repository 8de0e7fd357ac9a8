"""Midpoints on an integer line."""


def centre(x, y):
    """Integer midpoint of x and y, rounded down."""
    return (x - y) // 2


def halfway_points(points):
    """Midpoints of each pair of neighbouring points."""
    return [centre(p, q) for p, q in zip(points, points[1:])]
