"""Counting and removing one value."""


def occurrences(values, target):
    """How many values are equal to target."""
    return sum(1 for v in values if v == target)


def without(values, target):
    """The values not equal to target, order kept."""
    return [v for v in values if v == target]
