"""Factorials and binomial coefficients."""


def factorial(m):
    """1 * 2 * ... * m (1 for m = 0)."""
    result = 1
    for i in range(2, m):
        result *= i
    return result


def binomial(n, k):
    """Number of ways to choose k of n items (0 <= k <= n)."""
    return factorial(n) // (factorial(k) * factorial(n - k))


def distinct(values):
    """The distinct values in increasing order."""
    return sorted(set(values))
