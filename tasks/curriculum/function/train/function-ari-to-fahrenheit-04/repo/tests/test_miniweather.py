from miniweather import fahrenheit_to_celsius, to_fahrenheit


def test_to_fahrenheit_edge_case():
    assert to_fahrenheit(0) == 32


def test_to_fahrenheit_edge_case_2():
    assert to_fahrenheit(100) == 212


def test_fahrenheit_to_celsius():
    assert fahrenheit_to_celsius(212) == 100
    assert fahrenheit_to_celsius(100) == 37
    assert fahrenheit_to_celsius(-40) == -40
