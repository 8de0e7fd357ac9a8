from leancentres import halfway, middles


def test_halfway_more_1():
    assert halfway(0, 4) == 2


def test_halfway_more_2():
    assert halfway(1, 2) == 1


def test_halfway_more_3():
    assert halfway(10, 3) == 6


def test_halfway_more_4():
    assert halfway(-3, 0) == -2


def test_middles_more_1():
    assert middles([4, 10, 10, 2, 4]) == [7, 10, 6, 3]
