from leantills import refund_amount, subtract, word_count


def test_subtract():
    assert subtract(10, 0) == 10
    assert subtract(50, 40) == 10
    assert subtract(10, 40) == -30


def test_refund_amount():
    assert refund_amount(0, 0) == 0
    assert refund_amount(10, 10) == 0


def test_refund_amount_edge_case():
    assert refund_amount(20, 15) == 5


def test_refund_amount_edge_case_2():
    assert refund_amount(50, 40) == 10


def test_word_count():
    assert word_count('') == 0
    assert word_count('one') == 1
    assert word_count('a b  c') == 3
