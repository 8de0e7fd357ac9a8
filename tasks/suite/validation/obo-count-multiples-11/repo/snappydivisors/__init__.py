"""Counting multiples."""


def count_multiples(top, d):
    """How many of 1, 2, ..., top are divisible by d."""
    return sum(1 for i in range(1, top) if i % d == 0)


def multiples(top, d):
    """The numbers among 1, 2, ..., top divisible by d."""
    return [i for i in range(1, top + 1) if i % d == 0]
