from minipairs import pairwise, steps


def test_pairwise():
    assert pairwise([5]) == []
    assert pairwise([]) == []


def test_pairwise_edge_case():
    assert pairwise([2, 5, 0]) == [(2, 5), (5, 0)]


def test_pairwise_edge_case_2():
    assert pairwise([3, 7, 1, 0, 1, 5]) == [(3, 7), (7, 1), (1, 0), (0, 1), (1, 5)]


def test_steps():
    assert steps([5]) == []
    assert steps([]) == []


def test_steps_edge_case():
    assert steps([3, 7, 1, 0, 1, 5]) == [4, -6, -1, 1, 4]
