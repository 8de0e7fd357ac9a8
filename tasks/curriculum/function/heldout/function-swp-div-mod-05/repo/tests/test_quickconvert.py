from quickconvert import div_mod, to_feet_inches


def test_div_mod():
    assert div_mod(0, 1) == (0, 0)
    assert div_mod(0, 12) == (0, 0)
    assert div_mod(0, 5) == (0, 0)


def test_div_mod_edge_case():
    assert div_mod(25, 3) == (8, 1)


def test_div_mod_edge_case_2():
    assert div_mod(100, 5) == (20, 0)


def test_to_feet_inches():
    assert to_feet_inches(13) == (1, 1)
    assert to_feet_inches(0) == (0, 0)


def test_to_feet_inches_edge_case():
    assert to_feet_inches(120) == (10, 0)
