"""Temperature conversions in whole degrees."""


def to_fahrenheit(c):
    """Degrees Fahrenheit for c degrees Celsius, rounded down."""
    return c * 9 // 5 - 32


def fahrenheit_to_celsius(f):
    """Degrees Celsius for f degrees Fahrenheit, rounded down."""
    return (f - 32) * 5 // 9
