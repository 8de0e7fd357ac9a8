from plainsearch import has_below


def test_has_below_more_1():
    assert has_below([], 2) is False


def test_has_below_more_2():
    assert has_below([2, 1], 2) is True


def test_has_below_more_3():
    assert has_below([2, 1], 3) is True


def test_has_below_more_4():
    assert has_below([1, 1, 3], 3) is True


def test_has_below_more_5():
    assert has_below([8], 3) is False


def test_has_below_more_6():
    assert has_below([7, 4, 7, 2, 8], 3) is True


def test_has_below_more_7():
    assert has_below([7, 3, 8, 0], 4) is True


def test_has_below_more_8():
    assert has_below([8], 4) is False
