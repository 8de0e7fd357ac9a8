from handythermo import f_to_c, to_fahrenheit


def test_to_fahrenheit():
    assert to_fahrenheit(3) == 37
    assert to_fahrenheit(-40) == -40
    assert to_fahrenheit(0) == 32


def test_f_to_c_edge_case():
    assert f_to_c(212) == 100


def test_f_to_c_edge_case_2():
    assert f_to_c(50) == 10
