from neatcombinatorics import choose, product_up_to


def test_product_up_to_more_1():
    assert product_up_to(2) == 2


def test_product_up_to_more_2():
    assert product_up_to(3) == 6


def test_choose_more_1():
    assert choose(3, 2) == 3
