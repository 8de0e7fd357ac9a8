from smallorder import is_strictly_increasing


def test_is_strictly_increasing_more_1():
    assert is_strictly_increasing([0, 2, 3, 3, 4]) is False


def test_is_strictly_increasing_more_2():
    assert is_strictly_increasing([0, 3, 4, 4]) is False


def test_is_strictly_increasing_more_3():
    assert is_strictly_increasing([1, 1]) is False


def test_is_strictly_increasing_more_4():
    assert is_strictly_increasing([0, 0]) is False


def test_is_strictly_increasing_more_5():
    assert is_strictly_increasing([1, 3, 3]) is False


def test_is_strictly_increasing_more_6():
    assert is_strictly_increasing([2, 4, 4, 6]) is False


def test_is_strictly_increasing_more_7():
    assert is_strictly_increasing([0, 0, 1, 1]) is False


def test_is_strictly_increasing_more_8():
    assert is_strictly_increasing([1, 2, 2, 3]) is False
