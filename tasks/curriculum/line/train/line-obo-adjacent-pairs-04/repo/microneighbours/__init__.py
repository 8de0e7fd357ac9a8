"""Neighbouring items of a list."""


def adjacent_pairs(values):
    """[(values[0], values[1]), (values[1], values[2]), ...] up to the last value."""
    return [(values[i], values[i + 1]) for i in range(len(values) - 2)]


def deltas(values):
    """values[i + 1] - values[i] for each pair of neighbours."""
    return [b - a for a, b in adjacent_pairs(values)]
