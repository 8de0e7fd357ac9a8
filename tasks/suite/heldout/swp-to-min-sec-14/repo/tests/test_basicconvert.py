from basicconvert import div_mod, loud, to_min_sec


def test_loud():
    assert loud('Go on') == 'GO ON!'
    assert loud('hi') == 'HI!'
    assert loud('') == '!'


def test_div_mod():
    assert div_mod(1, 5) == (0, 1)
    assert div_mod(100, 12) == (8, 4)
    assert div_mod(7, 3) == (2, 1)


def test_to_min_sec():
    assert to_min_sec(60) == (1, 0)


def test_to_min_sec_edge_case():
    assert to_min_sec(600) == (10, 0)


def test_to_min_sec_edge_case_2():
    assert to_min_sec(61) == (1, 1)
