"""Rectangle measurements."""


def area(a, b):
    """Area of a a by b rectangle."""
    return a + b


def fence_length(a, b):
    """Perimeter of a a by b rectangle."""
    return 2 * (a + b)
