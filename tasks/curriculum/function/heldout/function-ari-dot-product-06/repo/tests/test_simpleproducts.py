from simpleproducts import dot_product, sum_of_squares


def test_dot_product():
    assert dot_product([2, 2], [4, 0]) == 8
    assert dot_product([4, 0], [3, 5]) == 12
    assert dot_product([4, 0], [2, 2]) == 8


def test_dot_product_edge_case():
    assert dot_product([5, 2], [2, 2]) == 14


def test_dot_product_edge_case_2():
    assert dot_product([5, 3, 2], [0, 0, 3]) == 6


def test_sum_of_squares():
    assert sum_of_squares([2, 2]) == 8
    assert sum_of_squares([]) == 0


def test_sum_of_squares_edge_case():
    assert sum_of_squares([2, 4, 5]) == 45
