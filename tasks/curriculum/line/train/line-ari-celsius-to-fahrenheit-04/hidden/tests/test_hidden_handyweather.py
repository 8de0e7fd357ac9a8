from handyweather import celsius_to_fahrenheit


def test_celsius_to_fahrenheit_more_1():
    assert celsius_to_fahrenheit(-10) == 14


def test_celsius_to_fahrenheit_more_2():
    assert celsius_to_fahrenheit(3) == 37


def test_celsius_to_fahrenheit_more_3():
    assert celsius_to_fahrenheit(21) == 69


def test_celsius_to_fahrenheit_more_4():
    assert celsius_to_fahrenheit(37) == 98
