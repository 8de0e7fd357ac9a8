"""Counting and removing one value."""


def occurrences(values, item):
    """How many values are equal to item."""
    return sum(1 for v in values if v != item)


def without(values, item):
    """The values not equal to item, order kept."""
    return [v for v in values if v != item]
