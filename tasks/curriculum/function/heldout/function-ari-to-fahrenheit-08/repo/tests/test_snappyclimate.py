from snappyclimate import fahrenheit_to_celsius, to_fahrenheit


def test_to_fahrenheit_edge_case():
    assert to_fahrenheit(-10) == 14


def test_to_fahrenheit_edge_case_2():
    assert to_fahrenheit(0) == 32


def test_fahrenheit_to_celsius():
    assert fahrenheit_to_celsius(50) == 10
    assert fahrenheit_to_celsius(-40) == -40
    assert fahrenheit_to_celsius(98) == 36
