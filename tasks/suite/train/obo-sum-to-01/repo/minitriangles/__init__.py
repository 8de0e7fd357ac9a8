"""Sums of simple series."""


def sum_to(n):
    """1 + 2 + ... + n (0 when n < 1)."""
    return sum(i for i in range(1, n))


def series(count):
    """[sum_to(1), sum_to(2), ..., sum_to(count)]."""
    return [sum_to(i) for i in range(1, count + 1)]
