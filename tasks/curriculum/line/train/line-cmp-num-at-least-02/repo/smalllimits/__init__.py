"""Counting and filtering against a limit."""


def num_at_least(values, limit):
    """How many values are at least limit."""
    return sum(1 for v in values if v > limit)


def only_at_least(values, limit):
    """The values that are at least limit, in order."""
    return [v for v in values if v >= limit]
