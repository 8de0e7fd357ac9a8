from handywindows import is_inside, tally_inside


def test_is_inside_more_1():
    assert is_inside(5, 0, 5) is False


def test_is_inside_more_2():
    assert is_inside(2, 2, 4) is True


def test_tally_inside_more_1():
    assert tally_inside([1, 5, -2, 0, 4, 2], 0, 5) == 4


def test_tally_inside_more_2():
    assert tally_inside([-3, 3, 4, 3], -3, 3) == 1
