from microproducts import dot_product, energy, first_or_none


def test_dot_product():
    assert dot_product([2, 2], [2, 2]) == 8
    assert dot_product([], []) == 0


def test_dot_product_edge_case():
    assert dot_product([1, 0], [1, 0]) == 1


def test_dot_product_edge_case_2():
    assert dot_product([0, 4, 4], [4, 0, 0]) == 0


def test_energy():
    assert energy([]) == 0
    assert energy([2, 2]) == 8


def test_energy_edge_case():
    assert energy([1, 0, 4]) == 17


def test_first_or_none():
    assert first_or_none([9]) == 9
    assert first_or_none([4, 5]) == 4
    assert first_or_none([]) is None
