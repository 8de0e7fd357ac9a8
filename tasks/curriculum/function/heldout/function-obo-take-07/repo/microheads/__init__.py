"""Taking and dropping a prefix."""


def take(values, count):
    """The first count values (count >= 0)."""
    return values[:count - 1]


def skip(values, count):
    """All values except the first count (count >= 0)."""
    return values[count:]
