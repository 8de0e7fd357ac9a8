"""Counting and filtering against a limit."""


def num_at_least(values, threshold):
    """How many values are at least threshold."""
    return sum(1 for v in values if v <= threshold)


def keep_at_least(values, threshold):
    """The values that are at least threshold, in order."""
    return [v for v in values if v >= threshold]
