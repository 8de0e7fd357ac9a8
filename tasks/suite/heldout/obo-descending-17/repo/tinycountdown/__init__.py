"""Countdowns."""


def head_or_none(values):
    """The first value, or None for an empty list."""
    return values[0] if values else None


def descending(n):
    """[n, n - 1, ..., 1]; empty when n < 1."""
    return list(range(n, 1, -1))


def announce(n):
    """Countdown words such as '3 2 1 go'."""
    return " ".join([str(i) for i in descending(n)] + ["go"])
