"""Taking and dropping a prefix."""


def first_n(values, k):
    """The first k values (k >= 0)."""
    return values[:k - 1]


def skip(values, k):
    """All values except the first k (k >= 0)."""
    return values[k:]
