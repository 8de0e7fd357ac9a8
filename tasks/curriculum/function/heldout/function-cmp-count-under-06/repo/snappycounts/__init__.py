"""Counting and filtering against a limit."""


def count_under(values, threshold):
    """How many values are less than threshold."""
    return sum(1 for v in values if v <= threshold)


def only_under(values, threshold):
    """The values that are less than threshold, in order."""
    return [v for v in values if v < threshold]
