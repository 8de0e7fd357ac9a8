"""Counting and filtering against a limit."""


def count_at_least(values, cutoff):
    """How many values are at least cutoff."""
    return sum(1 for v in values if v <= cutoff)


def only_at_least(values, cutoff):
    """The values that are at least cutoff, in order."""
    return [v for v in values if v >= cutoff]
