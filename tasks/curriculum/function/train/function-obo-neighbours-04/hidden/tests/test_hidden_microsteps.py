from microsteps import differences, neighbours


def test_neighbours_more_1():
    assert neighbours([7, 5, 5, 2, 8]) == [(7, 5), (5, 5), (5, 2), (2, 8)]


def test_neighbours_more_2():
    assert neighbours([2, 0]) == [(2, 0)]


def test_differences_more_1():
    assert differences([2, 0]) == [-2]
