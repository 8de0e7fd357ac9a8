"""Counting and filtering against a limit."""


def num_at_most(values, cutoff):
    """How many values are at most cutoff."""
    return sum(1 for v in values if v >= cutoff)


def keep_at_most(values, cutoff):
    """The values that are at most cutoff, in order."""
    return [v for v in values if v <= cutoff]
