from easyclock import as_seconds


def test_as_seconds_more_1():
    assert as_seconds(0, 30, 5) == 1805


def test_as_seconds_more_2():
    assert as_seconds(0, 59, 5) == 3545
