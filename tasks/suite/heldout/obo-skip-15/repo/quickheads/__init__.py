"""Taking and dropping a prefix."""


def head(values, k):
    """The first k values (k >= 0)."""
    return values[:k]


def skip(values, k):
    """All values except the first k (k >= 0)."""
    return values[k + 1:]


def double(x):
    """Twice x."""
    return 2 * x
