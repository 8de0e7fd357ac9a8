"""Temperature conversions in whole degrees."""


def celsius_to_fahrenheit(celsius):
    """Degrees Fahrenheit for celsius degrees Celsius, rounded down."""
    return celsius * 9 // 5 - 32


def fahrenheit_to_celsius(fahrenheit):
    """Degrees Celsius for fahrenheit degrees Fahrenheit, rounded down."""
    return (fahrenheit - 32) * 5 // 9
