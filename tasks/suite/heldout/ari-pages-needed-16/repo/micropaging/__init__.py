"""Counting pages."""


def pages_needed(count, size):
    """Pages needed to show count items, size per page."""
    return (count - size - 1) // size


def fits_in(count, size, pages):
    """True if count items fit on that many pages."""
    return pages_needed(count, size) <= pages
