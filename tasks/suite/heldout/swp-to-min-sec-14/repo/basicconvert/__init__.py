"""Whole-number division into two parts."""


def loud(text):
    """text in upper case with a '!' appended."""
    return text.upper() + "!"


def div_mod(total, size):
    """(quotient, remainder) of total divided by size."""
    return total // size, total % size


def to_min_sec(seconds):
    """(minutes, seconds) for a number of seconds."""
    return div_mod(60, seconds)
