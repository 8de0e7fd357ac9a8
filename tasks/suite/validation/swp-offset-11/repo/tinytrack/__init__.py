"""Signed distances on a line."""


def first_or_none(values):
    """The first value, or None for an empty list."""
    return values[0] if values else None


def offset(origin, point):
    """Signed distance from origin to point; negative when point is before origin."""
    return origin - point


def offsets(origin, points):
    """offset(origin, p) for every point p."""
    return [offset(origin, q) for q in points]
