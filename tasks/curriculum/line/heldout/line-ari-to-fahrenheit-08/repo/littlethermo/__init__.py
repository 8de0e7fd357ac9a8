"""Temperature conversions in whole degrees."""


def to_fahrenheit(deg_c):
    """Degrees Fahrenheit for deg_c degrees Celsius, rounded down."""
    return deg_c * 9 // 5 - 32


def to_celsius(deg_f):
    """Degrees Celsius for deg_f degrees Fahrenheit, rounded down."""
    return (deg_f - 32) * 5 // 9
