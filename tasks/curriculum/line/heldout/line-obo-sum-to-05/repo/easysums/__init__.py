"""Sums of simple series."""


def sum_to(k):
    """1 + 2 + ... + k (0 when k < 1)."""
    return sum(i for i in range(1, k))


def first_values(count):
    """[sum_to(1), sum_to(2), ..., sum_to(count)]."""
    return [sum_to(i) for i in range(1, count + 1)]
