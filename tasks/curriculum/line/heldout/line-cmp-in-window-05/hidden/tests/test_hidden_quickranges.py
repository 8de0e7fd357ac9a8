from quickranges import how_many_inside, in_window


def test_in_window_more_1():
    assert in_window(5, 0, 5) is False


def test_how_many_inside_more_1():
    assert how_many_inside([5, 0, 5, -1, 5, -1], 0, 5) == 1


def test_how_many_inside_more_2():
    assert how_many_inside([5, 2], 2, 4) == 1


def test_how_many_inside_more_3():
    assert how_many_inside([4, 3, 3, 0, 2], 2, 4) == 3
