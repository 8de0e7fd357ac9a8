from leanpairs import differences, neighbours


def test_neighbours_more_1():
    assert neighbours([5, 1, 7]) == [(5, 1), (1, 7)]


def test_neighbours_more_2():
    assert neighbours([8, 0]) == [(8, 0)]


def test_differences_more_1():
    assert differences([6, 3, 5, 4]) == [-3, 2, -1]
