from smallorder import is_strictly_increasing


def test_is_strictly_increasing_more_1():
    assert is_strictly_increasing([0, 0, 2, 2, 4]) is False


def test_is_strictly_increasing_more_2():
    assert is_strictly_increasing([0, 2, 3, 3, 4]) is False
