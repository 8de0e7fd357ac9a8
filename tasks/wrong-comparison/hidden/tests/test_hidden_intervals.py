from intervals import overlaps


def test_touching_intervals_do_not_overlap_either_order():
    assert overlaps((3, 5), (1, 3)) is False


def test_overlap_by_one_point():
    assert overlaps((1, 4), (3, 5)) is True
    assert overlaps((3, 5), (1, 4)) is True
