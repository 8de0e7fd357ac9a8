from leantills import refund_amount


def test_refund_amount_more_1():
    assert refund_amount(0, 15) == -15


def test_refund_amount_more_2():
    assert refund_amount(5, 10) == -5


def test_refund_amount_more_3():
    assert refund_amount(10, 40) == -30


def test_refund_amount_more_4():
    assert refund_amount(20, 40) == -20
