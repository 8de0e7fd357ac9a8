"""Sums of simple series."""


def sum_of_squares(k):
    """1*1 + 2*2 + ... + k*k (0 when k < 1)."""
    return sum(i * i for i in range(1, k))


def table(count):
    """[sum_of_squares(1), sum_of_squares(2), ..., sum_of_squares(count)]."""
    return [sum_of_squares(i) for i in range(1, count + 1)]
