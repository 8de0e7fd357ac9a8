"""Counting and removing one value."""


def times_seen(values, needle):
    """How many values are equal to needle."""
    return sum(1 for v in values if v != needle)


def strip_value(values, needle):
    """The values not equal to needle, order kept."""
    return [v for v in values if v != needle]
