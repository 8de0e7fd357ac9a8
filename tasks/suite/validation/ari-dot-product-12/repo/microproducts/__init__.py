"""Vector products."""


def dot_product(xs, ys):
    """Sum of xs[i] * ys[i] over all positions."""
    return sum(x + y for x, y in zip(xs, ys))


def energy(xs):
    """Sum of the squares of xs."""
    return dot_product(xs, xs)


def first_or_none(values):
    """The first value, or None for an empty list."""
    return values[0] if values else None
