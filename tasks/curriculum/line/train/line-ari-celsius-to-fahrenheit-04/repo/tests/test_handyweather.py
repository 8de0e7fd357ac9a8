from handyweather import celsius_to_fahrenheit, fahrenheit_to_celsius


def test_celsius_to_fahrenheit_edge_case():
    assert celsius_to_fahrenheit(100) == 212


def test_celsius_to_fahrenheit_edge_case_2():
    assert celsius_to_fahrenheit(0) == 32


def test_fahrenheit_to_celsius():
    assert fahrenheit_to_celsius(41) == 5
    assert fahrenheit_to_celsius(0) == -18
    assert fahrenheit_to_celsius(68) == 20
