from leanpairs import differences, neighbours, word_count


def test_neighbours():
    assert neighbours([5]) == []
    assert neighbours([]) == []


def test_neighbours_edge_case():
    assert neighbours([2, 1, 6, 4, 4]) == [(2, 1), (1, 6), (6, 4), (4, 4)]


def test_neighbours_edge_case_2():
    assert neighbours([3, 5, 3, 2, 2]) == [(3, 5), (5, 3), (3, 2), (2, 2)]


def test_differences():
    assert differences([]) == []
    assert differences([5]) == []


def test_differences_edge_case():
    assert differences([5, 1, 7]) == [-4, 6]


def test_word_count():
    assert word_count('one') == 1
    assert word_count('a b  c') == 3
    assert word_count('') == 0
