from quickfinder import any_exceeding, find_above


def test_find_above_more_1():
    assert find_above([3, 3, 8], 3) == 2


def test_find_above_more_2():
    assert find_above([4, 6, 7, 7], 6) == 2


def test_any_exceeding_more_1():
    assert any_exceeding([3, 1], 3) is False
