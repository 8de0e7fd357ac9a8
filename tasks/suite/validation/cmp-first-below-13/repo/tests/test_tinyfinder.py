from tinyfinder import any_under, first_below


def test_first_below():
    assert first_below([3], 2) == -1
    assert first_below([0, 6, 8, 8, 8, 0], 4) == 0
    assert first_below([4, 1], 2) == 1


def test_first_below_edge_case():
    assert first_below([9, 5], 5) == -1


def test_first_below_edge_case_2():
    assert first_below([5, 1, 5], 5) == 1


def test_any_under():
    assert any_under([3, 7], 2) is False
    assert any_under([3, 7], 5) is True
    assert any_under([4, 1], 5) is True
