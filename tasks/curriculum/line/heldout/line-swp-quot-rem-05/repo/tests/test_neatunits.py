from neatunits import minutes_seconds, quot_rem


def test_quot_rem():
    assert quot_rem(0, 1) == (0, 0)
    assert quot_rem(0, 5) == (0, 0)
    assert quot_rem(0, 12) == (0, 0)


def test_quot_rem_edge_case():
    assert quot_rem(100, 1) == (100, 0)


def test_quot_rem_edge_case_2():
    assert quot_rem(25, 1) == (25, 0)


def test_minutes_seconds():
    assert minutes_seconds(61) == (1, 1)
    assert minutes_seconds(0) == (0, 0)


def test_minutes_seconds_edge_case():
    assert minutes_seconds(59) == (0, 59)
