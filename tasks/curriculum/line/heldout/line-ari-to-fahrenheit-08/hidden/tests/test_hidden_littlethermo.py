from littlethermo import to_fahrenheit


def test_to_fahrenheit_more_1():
    assert to_fahrenheit(-40) == -40


def test_to_fahrenheit_more_2():
    assert to_fahrenheit(21) == 69


def test_to_fahrenheit_more_3():
    assert to_fahrenheit(37) == 98


def test_to_fahrenheit_more_4():
    assert to_fahrenheit(100) == 212
