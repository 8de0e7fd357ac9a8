from plainpairs import count_words, pairwise, steps


def test_count_words():
    assert count_words('one') == 1
    assert count_words('a b  c') == 3
    assert count_words('') == 0


def test_pairwise():
    assert pairwise([5]) == []
    assert pairwise([]) == []


def test_pairwise_edge_case():
    assert pairwise([4, 8, 8]) == [(4, 8), (8, 8)]


def test_pairwise_edge_case_2():
    assert pairwise([2, 2]) == [(2, 2)]


def test_steps():
    assert steps([5]) == []
    assert steps([]) == []
