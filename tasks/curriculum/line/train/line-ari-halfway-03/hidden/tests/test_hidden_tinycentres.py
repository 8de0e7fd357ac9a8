from tinycentres import halfway, middles


def test_halfway_more_1():
    assert halfway(1, 2) == 1


def test_halfway_more_2():
    assert halfway(4, 9) == 6


def test_halfway_more_3():
    assert halfway(6, 6) == 6


def test_halfway_more_4():
    assert halfway(-3, 0) == -2


def test_middles_more_1():
    assert middles([3, 8, 9, 3]) == [5, 8, 6]
