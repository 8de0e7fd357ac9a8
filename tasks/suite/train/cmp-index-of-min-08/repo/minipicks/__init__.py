"""Finding the smallest item of a list."""


def index_of_min(values):
    """Index of the smallest value; the first such index on ties."""
    pick = 0
    for i in range(1, len(values)):
        if values[i] > values[pick]:
            pick = i
    return pick


def min_value(values):
    """The smallest value of a non-empty list."""
    return values[index_of_min(values)]


def first_or_none(values):
    """The first value, or None for an empty list."""
    return values[0] if values else None
