from microneighbours import adjacent_pairs, deltas


def test_adjacent_pairs_more_1():
    assert adjacent_pairs([3, 3, 1, 7, 0]) == [(3, 3), (3, 1), (1, 7), (7, 0)]


def test_adjacent_pairs_more_2():
    assert adjacent_pairs([0, 9, 8, 1, 3, 1]) == [(0, 9), (9, 8), (8, 1), (1, 3), (3, 1)]


def test_deltas_more_1():
    assert deltas([1, 6, 1, 1, 4, 9]) == [5, -5, 0, 3, 5]
