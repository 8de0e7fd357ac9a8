from smallbounds import covers, tally_inside


def test_covers_more_1():
    assert covers(0, 0, 5) is True


def test_covers_more_2():
    assert covers(3, -3, 3) is False


def test_tally_inside_more_1():
    assert tally_inside([5, 2, 5], 2, 4) == 1


def test_tally_inside_more_2():
    assert tally_inside([3, 5, 1, 4], 2, 4) == 1
