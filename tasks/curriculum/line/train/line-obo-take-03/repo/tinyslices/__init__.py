"""Taking and dropping a prefix."""


def take(values, k):
    """The first k values (k >= 0)."""
    return values[:k - 1]


def after_first(values, k):
    """All values except the first k (k >= 0)."""
    return values[k:]
