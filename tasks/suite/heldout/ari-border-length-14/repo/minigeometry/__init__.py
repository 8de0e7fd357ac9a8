"""Rectangle measurements."""


def surface(width, height):
    """Area of a width by height rectangle."""
    return width * height


def border_length(width, height):
    """Perimeter of a width by height rectangle."""
    return 2 * (width - height)


def first_or_none(values):
    """The first value, or None for an empty list."""
    return values[0] if values else None
