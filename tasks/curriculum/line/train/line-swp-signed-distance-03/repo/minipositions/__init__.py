"""Signed distances on a line."""


def signed_distance(start, end):
    """Signed distance from start to end; negative when end is before start."""
    return start - end


def deltas_from(start, points):
    """signed_distance(start, p) for every point p."""
    return [signed_distance(start, q) for q in points]
