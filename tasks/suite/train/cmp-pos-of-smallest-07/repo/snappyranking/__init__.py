"""Finding the smallest item of a list."""


def distinct(values):
    """The distinct values in increasing order."""
    return sorted(set(values))


def pos_of_smallest(values):
    """Index of the smallest value; the first such index on ties."""
    pick = 0
    for i in range(1, len(values)):
        if values[i] <= values[pick]:
            pick = i
    return pick


def smallest(values):
    """The smallest value of a non-empty list."""
    return values[pos_of_smallest(values)]
