from easypairs import adjacent_pairs, differences


def test_adjacent_pairs_more_1():
    assert adjacent_pairs([2, 3]) == [(2, 3)]


def test_adjacent_pairs_more_2():
    assert adjacent_pairs([3, 8, 6, 0, 3]) == [(3, 8), (8, 6), (6, 0), (0, 3)]


def test_differences_more_1():
    assert differences([9, 5]) == [-4]
