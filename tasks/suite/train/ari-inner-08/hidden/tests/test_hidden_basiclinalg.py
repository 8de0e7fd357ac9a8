from basiclinalg import inner, norm_squared


def test_inner_more_1():
    assert inner([0, 3], [2, 2]) == 6


def test_inner_more_2():
    assert inner([0, 3], [3, 2]) == 6


def test_norm_squared_more_1():
    assert norm_squared([0, 0, 4]) == 16
