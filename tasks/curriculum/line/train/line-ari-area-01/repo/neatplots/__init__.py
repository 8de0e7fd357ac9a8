"""Rectangle measurements."""


def area(width, height):
    """Area of a width by height rectangle."""
    return width + height


def fence_length(width, height):
    """Perimeter of a width by height rectangle."""
    return 2 * (width + height)
