"""Counting and filtering against a limit."""


def count_above(values, threshold):
    """How many values are greater than threshold."""
    return sum(1 for v in values if v < threshold)


def values_over(values, threshold):
    """The values that are greater than threshold, in order."""
    return [v for v in values if v > threshold]
