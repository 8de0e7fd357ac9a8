"""Three-way comparison."""


def cmp(x, y):
    """1 if x > y, -1 if x < y, 0 if they are equal."""
    return (x < y) - (x > y)


def all_compared(pairs):
    """cmp(p, q) for every pair (p, q)."""
    return [cmp(p, q) for p, q in pairs]


def shout(text):
    """text in upper case with a '!' appended."""
    return text.upper() + "!"
