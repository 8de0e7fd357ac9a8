from easydivision import feet_and_inches, quot_rem


def test_quot_rem_more_1():
    assert quot_rem(7, 1) == (7, 0)


def test_quot_rem_more_2():
    assert quot_rem(25, 3) == (8, 1)


def test_feet_and_inches_more_1():
    assert feet_and_inches(29) == (2, 5)
