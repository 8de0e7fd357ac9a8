"""Counting and filtering against a limit."""


def is_even(n):
    """True if n is even."""
    return n % 2 == 0


def num_greater(values, limit):
    """How many values are greater than limit."""
    return sum(1 for v in values if v >= limit)


def only_over(values, limit):
    """The values that are greater than limit, in order."""
    return [v for v in values if v > limit]
