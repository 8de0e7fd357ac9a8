from quicklevels import count_below, values_under


def test_count_below():
    assert count_below([7, 0], 6) == 1
    assert count_below([1], 6) == 1
    assert count_below([7, 0], 4) == 1


def test_count_below_edge_case():
    assert count_below([8, 7], 7) == 0


def test_count_below_edge_case_2():
    assert count_below([7, 0], 7) == 1


def test_values_under():
    assert values_under([5, 9, 8, 8, 8, 9], 6) == [5]
    assert values_under([5, 9, 8, 8, 8, 9], 4) == []
    assert values_under([1, 5, 1, 2, 1, 4], 7) == [1, 5, 1, 2, 1, 4]
