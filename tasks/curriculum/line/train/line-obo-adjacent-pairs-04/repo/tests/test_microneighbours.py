from microneighbours import adjacent_pairs, deltas


def test_adjacent_pairs():
    assert adjacent_pairs([5]) == []
    assert adjacent_pairs([]) == []


def test_adjacent_pairs_edge_case():
    assert adjacent_pairs([5, 2, 5, 0, 1]) == [(5, 2), (2, 5), (5, 0), (0, 1)]


def test_adjacent_pairs_edge_case_2():
    assert adjacent_pairs([3, 5, 2, 2, 5, 9]) == [(3, 5), (5, 2), (2, 2), (2, 5), (5, 9)]


def test_deltas():
    assert deltas([]) == []
    assert deltas([5]) == []


def test_deltas_edge_case():
    assert deltas([0, 9, 8, 1, 3, 1]) == [9, -1, -7, 2, -2]
