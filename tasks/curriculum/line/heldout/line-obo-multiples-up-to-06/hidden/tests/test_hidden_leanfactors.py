from leanfactors import multiples_up_to


def test_multiples_up_to_more_1():
    assert multiples_up_to(7, 2) == 3


def test_multiples_up_to_more_2():
    assert multiples_up_to(3, 3) == 1


def test_multiples_up_to_more_3():
    assert multiples_up_to(11, 3) == 3


def test_multiples_up_to_more_4():
    assert multiples_up_to(12, 4) == 3
