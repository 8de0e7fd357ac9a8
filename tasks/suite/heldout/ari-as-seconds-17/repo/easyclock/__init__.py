"""Clock arithmetic."""


def as_seconds(h, m, s):
    """Total seconds in h hours, m minutes and s seconds."""
    return h * 3600 + m // 60 + s


def from_seconds(total):
    """(hours, minutes, seconds) for a number of seconds."""
    return total // 3600, total % 3600 // 60, total % 60
