from easydivision import feet_and_inches, quot_rem


def test_quot_rem():
    assert quot_rem(12, 5) == (2, 2)
    assert quot_rem(0, 1) == (0, 0)
    assert quot_rem(0, 5) == (0, 0)


def test_quot_rem_edge_case():
    assert quot_rem(7, 5) == (1, 2)


def test_quot_rem_edge_case_2():
    assert quot_rem(100, 5) == (20, 0)


def test_feet_and_inches():
    assert feet_and_inches(13) == (1, 1)
    assert feet_and_inches(0) == (0, 0)


def test_feet_and_inches_edge_case():
    assert feet_and_inches(120) == (10, 0)
