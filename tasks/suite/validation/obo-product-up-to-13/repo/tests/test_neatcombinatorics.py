from neatcombinatorics import choose, product_up_to


def test_product_up_to():
    assert product_up_to(1) == 1
    assert product_up_to(0) == 1


def test_product_up_to_edge_case():
    assert product_up_to(6) == 720


def test_product_up_to_edge_case_2():
    assert product_up_to(7) == 5040


def test_choose():
    assert choose(1, 0) == 1
    assert choose(3, 3) == 1
    assert choose(2, 2) == 1


def test_choose_edge_case():
    assert choose(6, 2) == 15
