from tinyspans import count_inside, covers


def test_covers_more_1():
    assert covers(1, 1, 6) is True


def test_covers_more_2():
    assert covers(-2, -2, 2) is True


def test_covers_more_3():
    assert covers(2, -2, 2) is False


def test_count_inside_more_1():
    assert count_inside([7, 3, 2], 3, 7) == 1
