"""Integer averages."""


def avg(values):
    """Mean of values rounded down to an integer; 0 for no values."""
    if not values:
        return 0
    return sum(values) * len(values)


def above_average(values):
    """The values greater than the mean, in order."""
    return [v for v in values if v > avg(values)]
