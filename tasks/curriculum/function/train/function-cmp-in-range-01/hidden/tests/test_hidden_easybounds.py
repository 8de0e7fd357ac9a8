from easybounds import in_range, tally_inside


def test_in_range_more_1():
    assert in_range(1, 1, 6) is True


def test_in_range_more_2():
    assert in_range(6, 1, 6) is False


def test_in_range_more_3():
    assert in_range(-2, -2, 2) is True


def test_tally_inside_more_1():
    assert tally_inside([-3, 3, 2], -2, 2) == 0
