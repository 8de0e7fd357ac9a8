from easyclock import as_seconds, from_seconds


def test_as_seconds():
    assert as_seconds(1, 0, 5) == 3605
    assert as_seconds(0, 0, 5) == 5
    assert as_seconds(2, 0, 0) == 7200


def test_as_seconds_edge_case():
    assert as_seconds(1, 30, 0) == 5400


def test_as_seconds_edge_case_2():
    assert as_seconds(2, 1, 5) == 7265


def test_from_seconds():
    assert from_seconds(59) == (0, 0, 59)
    assert from_seconds(60) == (0, 1, 0)
    assert from_seconds(0) == (0, 0, 0)
