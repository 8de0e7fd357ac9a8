"""Integer powers."""


def raise_to(b, e):
    """b raised to the power e."""
    return b ** e


def all_cubes(values):
    """Every value raised to the power 3."""
    return [raise_to(3, v) for v in values]
