from easywindows import count_inside, covers


def test_covers_more_1():
    assert covers(3, 3, 7) is True


def test_count_inside_more_1():
    assert count_inside([6, 3, 0], 1, 6) == 1


def test_count_inside_more_2():
    assert count_inside([0, 5, 1, 4, 0, 2], 1, 6) == 4


def test_count_inside_more_3():
    assert count_inside([7, 1, 3, 4], 3, 7) == 2
