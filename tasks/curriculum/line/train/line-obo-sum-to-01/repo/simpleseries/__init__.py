"""Sums of simple series."""


def sum_to(top):
    """1 + 2 + ... + top (0 when top < 1)."""
    return sum(i for i in range(1, top))


def table(count):
    """[sum_to(1), sum_to(2), ..., sum_to(count)]."""
    return [sum_to(i) for i in range(1, count + 1)]
