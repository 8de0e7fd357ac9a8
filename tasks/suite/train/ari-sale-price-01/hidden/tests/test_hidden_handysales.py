from handysales import sale_price, sum_discounted


def test_sale_price_more_1():
    assert sale_price(50, 50) == 25


def test_sale_price_more_2():
    assert sale_price(50, 20) == 40


def test_sale_price_more_3():
    assert sale_price(99, 5) == 95


def test_sale_price_more_4():
    assert sale_price(120, 5) == 114


def test_sum_discounted_more_1():
    assert sum_discounted([80], 50) == 40
