"""Sums of simple series."""


def first_or_none(values):
    """The first value, or None for an empty list."""
    return values[0] if values else None


def square_total(k):
    """1*1 + 2*2 + ... + k*k (0 when k < 1)."""
    return sum(i * i for i in range(1, k + 1))


def series(count):
    """[square_total(1), square_total(2), ..., square_total(count)]."""
    return [square_total(i) for i in range(1, count)]
