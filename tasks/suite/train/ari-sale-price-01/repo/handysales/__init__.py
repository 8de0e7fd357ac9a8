"""Price arithmetic."""


def sale_price(cost, rate):
    """cost minus rate percent of it (the amount taken off is rounded down)."""
    return cost + cost * rate // 100


def sum_discounted(prices, rate):
    """Sum of the prices after taking rate percent off each."""
    return sum(sale_price(p, rate) for p in prices)


def even(n):
    """True if n is even."""
    return n % 2 == 0
