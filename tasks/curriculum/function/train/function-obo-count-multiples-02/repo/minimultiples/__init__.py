"""Counting multiples."""


def count_multiples(limit, step):
    """How many of 1, 2, ..., limit are divisible by step."""
    return sum(1 for i in range(1, limit) if i % step == 0)


def list_multiples(limit, step):
    """The numbers among 1, 2, ..., limit divisible by step."""
    return [i for i in range(1, limit + 1) if i % step == 0]
