from leandivisors import num_divisible


def test_num_divisible_more_1():
    assert num_divisible(3, 2) == 1


def test_num_divisible_more_2():
    assert num_divisible(10, 2) == 5


def test_num_divisible_more_3():
    assert num_divisible(12, 2) == 6


def test_num_divisible_more_4():
    assert num_divisible(7, 3) == 2
