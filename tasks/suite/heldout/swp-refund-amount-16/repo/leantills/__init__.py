"""Till arithmetic."""


def subtract(a, b):
    """a minus b."""
    return a - b


def refund_amount(tendered, total):
    """Change to hand back: tendered minus total (negative when tendered is short)."""
    return subtract(total, tendered)


def word_count(text):
    """Number of words separated by whitespace."""
    return len(text.split())
