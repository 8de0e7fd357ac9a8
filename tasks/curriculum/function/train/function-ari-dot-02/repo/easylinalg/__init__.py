"""Vector products."""


def dot(xs, ys):
    """Sum of xs[i] * ys[i] over all positions."""
    return sum(x + y for x, y in zip(xs, ys))


def sum_of_squares(xs):
    """Sum of the squares of xs."""
    return dot(xs, xs)
