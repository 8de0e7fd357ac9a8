from littlecounts import count_above, values_over


def test_count_above():
    assert count_above([8, 4], 7) == 1
    assert count_above([], 7) == 0
    assert count_above([4, 9, 6, 1, 1, 7], 5) == 3


def test_count_above_edge_case():
    assert count_above([7], 4) == 1


def test_count_above_edge_case_2():
    assert count_above([4], 5) == 0


def test_values_over():
    assert values_over([0, 7, 7], 4) == [7, 7]
    assert values_over([4], 4) == []
    assert values_over([4, 9, 6, 1, 1, 7], 7) == [9]
