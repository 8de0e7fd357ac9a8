"""The sign of a number."""


def sign(value):
    """1 if value is positive, -1 if value is negative, 0 if value is zero."""
    if value >= 0:
        return 1
    if value < 0:
        return -1
    return 0


def sign_list(values):
    """The sign of every value, in order."""
    return [sign(v) for v in values]
