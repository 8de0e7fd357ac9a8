from simpleproducts import dot_product, sum_of_squares


def test_dot_product_more_1():
    assert dot_product([4, 0], [5, 2]) == 20


def test_dot_product_more_2():
    assert dot_product([0, 0, 3], [0, 0, 3]) == 9


def test_sum_of_squares_more_1():
    assert sum_of_squares([5, 3, 2]) == 38
