from quickconvert import div_mod, to_feet_inches


def test_div_mod_more_1():
    assert div_mod(7, 3) == (2, 1)


def test_div_mod_more_2():
    assert div_mod(7, 12) == (0, 7)


def test_to_feet_inches_more_1():
    assert to_feet_inches(1) == (0, 1)
