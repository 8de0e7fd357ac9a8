"""Factorials and binomial coefficients."""


def product_up_to(m):
    """1 * 2 * ... * m (1 for m = 0)."""
    result = 1
    for i in range(2, m):
        result *= i
    return result


def choose(n, k):
    """Number of ways to choose k of n items (0 <= k <= n)."""
    return product_up_to(n) // (product_up_to(k) * product_up_to(n - k))
