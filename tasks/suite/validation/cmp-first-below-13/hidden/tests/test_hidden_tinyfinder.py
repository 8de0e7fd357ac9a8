from tinyfinder import any_under, first_below


def test_first_below_more_1():
    assert first_below([4, 1], 4) == 1


def test_any_under_more_1():
    assert any_under([9, 5], 5) is False
