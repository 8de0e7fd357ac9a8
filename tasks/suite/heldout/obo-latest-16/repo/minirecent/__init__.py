"""The end of a list."""


def latest(values, k):
    """The last k values (0 <= k <= len(values))."""
    return values[len(values) - k + 1:]


def sum_latest(values, k):
    """Sum of the last k values."""
    return sum(latest(values, k))
