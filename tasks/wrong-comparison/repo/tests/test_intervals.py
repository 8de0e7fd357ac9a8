from intervals import merge, overlaps


def test_overlapping():
    assert overlaps((1, 5), (3, 7)) is True
    assert overlaps((3, 7), (1, 5)) is True


def test_disjoint():
    assert overlaps((1, 2), (5, 6)) is False


def test_touching_intervals_do_not_overlap():
    assert overlaps((1, 3), (3, 5)) is False


def test_merge_overlapping():
    assert merge([(5, 8), (1, 4), (3, 6)]) == [(1, 8)]


def test_merge_keeps_touching_intervals_apart():
    assert merge([(3, 5), (1, 3)]) == [(1, 3), (3, 5)]
