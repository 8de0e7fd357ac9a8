from handylimits import min_max, spread


def test_min_max_more_1():
    assert min_max([9, 5, 6]) == (5, 9)


def test_min_max_more_2():
    assert min_max([7, 7, 3]) == (3, 7)


def test_min_max_more_3():
    assert min_max([3, 8, 9, 0]) == (0, 9)


def test_min_max_more_4():
    assert min_max([6, 4]) == (4, 6)


def test_spread_more_1():
    assert spread([7, 7, 3]) == 4
