"""Account balance arithmetic."""


def loud(text):
    """text in upper case with a '!' appended."""
    return text.upper() + "!"


def net_change(gains, losses):
    """Total gains minus total losses."""
    return sum(gains) + sum(losses)


def breaks_even(gains, losses):
    """True if the balance does not go down."""
    return net_change(gains, losses) >= 0
