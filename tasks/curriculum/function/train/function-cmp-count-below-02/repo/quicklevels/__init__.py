"""Counting and filtering against a limit."""


def count_below(values, threshold):
    """How many values are less than threshold."""
    return sum(1 for v in values if v <= threshold)


def values_under(values, threshold):
    """The values that are less than threshold, in order."""
    return [v for v in values if v < threshold]
