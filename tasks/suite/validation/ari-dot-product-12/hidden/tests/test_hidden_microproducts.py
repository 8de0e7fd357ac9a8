from microproducts import dot_product, energy


def test_dot_product_more_1():
    assert dot_product([1, 0], [2, 2]) == 2


def test_dot_product_more_2():
    assert dot_product([0, 4, 4], [1, 0, 4]) == 16


def test_energy_more_1():
    assert energy([1, 0]) == 1
