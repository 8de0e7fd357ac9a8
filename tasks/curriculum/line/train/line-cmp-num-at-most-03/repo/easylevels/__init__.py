"""Counting and filtering against a limit."""


def num_at_most(values, threshold):
    """How many values are at most threshold."""
    return sum(1 for v in values if v >= threshold)


def only_at_most(values, threshold):
    """The values that are at most threshold, in order."""
    return [v for v in values if v <= threshold]
