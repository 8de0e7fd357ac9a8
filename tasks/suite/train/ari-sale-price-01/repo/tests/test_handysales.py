from handysales import even, sale_price, sum_discounted


def test_sale_price():
    assert sale_price(100, 0) == 100
    assert sale_price(0, 0) == 0
    assert sale_price(80, 0) == 80


def test_sale_price_edge_case():
    assert sale_price(100, 50) == 50


def test_sale_price_edge_case_2():
    assert sale_price(100, 20) == 80


def test_sum_discounted():
    assert sum_discounted([100], 0) == 100
    assert sum_discounted([50, 120], 0) == 170
    assert sum_discounted([], 5) == 0


def test_even():
    assert even(0) is True
    assert even(-4) is True
    assert even(7) is False
