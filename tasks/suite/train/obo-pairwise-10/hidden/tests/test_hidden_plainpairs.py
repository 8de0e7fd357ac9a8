from plainpairs import pairwise, steps


def test_pairwise_more_1():
    assert pairwise([2, 3, 1, 0, 0, 4]) == [(2, 3), (3, 1), (1, 0), (0, 0), (0, 4)]


def test_pairwise_more_2():
    assert pairwise([8, 6, 4, 6, 5]) == [(8, 6), (6, 4), (4, 6), (6, 5)]


def test_steps_more_1():
    assert steps([4, 8, 8]) == [4, 0]
