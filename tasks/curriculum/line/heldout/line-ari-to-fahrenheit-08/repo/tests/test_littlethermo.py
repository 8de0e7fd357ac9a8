from littlethermo import to_celsius, to_fahrenheit


def test_to_fahrenheit_edge_case():
    assert to_fahrenheit(10) == 50


def test_to_fahrenheit_edge_case_2():
    assert to_fahrenheit(0) == 32


def test_to_celsius():
    assert to_celsius(100) == 37
    assert to_celsius(0) == -18
    assert to_celsius(41) == 5
