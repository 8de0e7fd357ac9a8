from littlemultiples import num_divisible


def test_num_divisible_more_1():
    assert num_divisible(9, 3) == 3


def test_num_divisible_more_2():
    assert num_divisible(4, 4) == 1


def test_num_divisible_more_3():
    assert num_divisible(6, 4) == 1


def test_num_divisible_more_4():
    assert num_divisible(9, 4) == 2
