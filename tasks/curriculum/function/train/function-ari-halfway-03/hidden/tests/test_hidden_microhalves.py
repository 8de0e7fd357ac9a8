from microhalves import halfway, midpoints


def test_halfway_more_1():
    assert halfway(0, 4) == 2


def test_halfway_more_2():
    assert halfway(4, 9) == 6


def test_halfway_more_3():
    assert halfway(10, 3) == 6


def test_midpoints_more_1():
    assert midpoints([9, 7, 5, 10]) == [8, 6, 7]


def test_midpoints_more_2():
    assert midpoints([2, 5, 10, 0]) == [3, 7, 5]
