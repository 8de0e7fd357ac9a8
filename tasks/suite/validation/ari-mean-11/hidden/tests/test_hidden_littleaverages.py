from littleaverages import above_average, mean


def test_mean_more_1():
    assert mean([2, 4]) == 3


def test_mean_more_2():
    assert mean([1, 2]) == 1


def test_mean_more_3():
    assert mean([7, 4, 9, 4, 3]) == 5


def test_mean_more_4():
    assert mean([5, 0, 5, 4, 8]) == 4


def test_above_average_more_1():
    assert above_average([5, 0, 5, 4, 8]) == [5, 5, 8]
