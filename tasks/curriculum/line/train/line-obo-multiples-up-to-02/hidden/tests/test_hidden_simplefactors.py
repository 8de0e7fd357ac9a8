from simplefactors import multiples_up_to


def test_multiples_up_to_more_1():
    assert multiples_up_to(5, 2) == 2


def test_multiples_up_to_more_2():
    assert multiples_up_to(12, 2) == 6


def test_multiples_up_to_more_3():
    assert multiples_up_to(7, 3) == 2


def test_multiples_up_to_more_4():
    assert multiples_up_to(12, 3) == 4
