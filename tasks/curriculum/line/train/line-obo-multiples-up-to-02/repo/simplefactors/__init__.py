"""Counting multiples."""


def multiples_up_to(n, k):
    """How many of 1, 2, ..., n are divisible by k."""
    return sum(1 for i in range(1, n) if i % k == 0)


def list_multiples(n, k):
    """The numbers among 1, 2, ..., n divisible by k."""
    return [i for i in range(1, n + 1) if i % k == 0]
