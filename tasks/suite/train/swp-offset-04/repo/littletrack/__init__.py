"""Signed distances on a line."""


def offset(ref, pos):
    """Signed distance from ref to pos; negative when pos is before ref."""
    return ref - pos


def deltas_from(ref, points):
    """offset(ref, p) for every point p."""
    return [offset(ref, q) for q in points]


def head_or_none(values):
    """The first value, or None for an empty list."""
    return values[0] if values else None
