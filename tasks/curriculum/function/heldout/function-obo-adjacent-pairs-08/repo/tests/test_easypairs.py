from easypairs import adjacent_pairs, differences


def test_adjacent_pairs():
    assert adjacent_pairs([5]) == []
    assert adjacent_pairs([]) == []


def test_adjacent_pairs_edge_case():
    assert adjacent_pairs([1, 6, 7, 3, 2, 7]) == [(1, 6), (6, 7), (7, 3), (3, 2), (2, 7)]


def test_adjacent_pairs_edge_case_2():
    assert adjacent_pairs([3, 6, 9, 5, 2]) == [(3, 6), (6, 9), (9, 5), (5, 2)]


def test_differences():
    assert differences([5]) == []
    assert differences([]) == []


def test_differences_edge_case():
    assert differences([3, 8, 6, 0, 3]) == [5, -2, -6, 3]
