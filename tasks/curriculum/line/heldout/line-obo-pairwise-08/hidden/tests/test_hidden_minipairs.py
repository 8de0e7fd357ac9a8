from minipairs import pairwise, steps


def test_pairwise_more_1():
    assert pairwise([0, 3]) == [(0, 3)]


def test_pairwise_more_2():
    assert pairwise([6, 7, 2, 6, 2]) == [(6, 7), (7, 2), (2, 6), (6, 2)]


def test_steps_more_1():
    assert steps([2, 7, 5]) == [5, -2]
