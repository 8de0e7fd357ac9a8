"""Signed distances on a line."""


def signed_distance(origin, point):
    """Signed distance from origin to point; negative when point is before origin."""
    return origin - point


def deltas_from(origin, points):
    """signed_distance(origin, p) for every point p."""
    return [signed_distance(origin, q) for q in points]
