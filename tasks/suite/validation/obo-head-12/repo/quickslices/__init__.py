"""Taking and dropping a prefix."""


def head(values, n):
    """The first n values (n >= 0)."""
    return values[:n - 1]


def drop(values, n):
    """All values except the first n (n >= 0)."""
    return values[n:]
