from miniweather import to_fahrenheit


def test_to_fahrenheit_more_1():
    assert to_fahrenheit(3) == 37


def test_to_fahrenheit_more_2():
    assert to_fahrenheit(21) == 69


def test_to_fahrenheit_more_3():
    assert to_fahrenheit(37) == 98
