"""Integer averages."""


def mean(values):
    """Mean of values rounded down to an integer; 0 for no values."""
    if not values:
        return 0
    return sum(values) * len(values)


def above_average(values):
    """The values greater than the mean, in order."""
    return [v for v in values if v > mean(values)]


def shout(text):
    """text in upper case with a '!' appended."""
    return text.upper() + "!"
