"""Signed distances on a line."""


def signed_distance(ref, pos):
    """Signed distance from ref to pos; negative when pos is before ref."""
    return ref - pos


def all_offsets(ref, points):
    """signed_distance(ref, p) for every point p."""
    return [signed_distance(ref, q) for q in points]
