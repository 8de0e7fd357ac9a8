from tinydivision import quot_rem, to_weeks_days


def test_quot_rem():
    assert quot_rem(0, 5) == (0, 0)
    assert quot_rem(0, 12) == (0, 0)
    assert quot_rem(0, 1) == (0, 0)


def test_quot_rem_edge_case():
    assert quot_rem(7, 5) == (1, 2)


def test_quot_rem_edge_case_2():
    assert quot_rem(100, 12) == (8, 4)


def test_to_weeks_days():
    assert to_weeks_days(0) == (0, 0)
    assert to_weeks_days(8) == (1, 1)
