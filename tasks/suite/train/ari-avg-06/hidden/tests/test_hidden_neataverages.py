from neataverages import above_average, avg


def test_avg_more_1():
    assert avg([1, 2]) == 1


def test_avg_more_2():
    assert avg([3, 3, 3]) == 3


def test_avg_more_3():
    assert avg([0, 3, 2, 9]) == 3


def test_above_average_more_1():
    assert above_average([2, 4]) == [4]
