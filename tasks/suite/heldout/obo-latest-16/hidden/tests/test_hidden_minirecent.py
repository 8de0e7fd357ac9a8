from minirecent import latest, sum_latest


def test_latest_more_1():
    assert latest([6, 6, 7, 6, 2], 1) == [2]


def test_latest_more_2():
    assert latest([6, 6, 7, 6, 2], 5) == [6, 6, 7, 6, 2]


def test_latest_more_3():
    assert latest([0, 7], 0) == []


def test_sum_latest_more_1():
    assert sum_latest([0, 7], 0) == 0


def test_sum_latest_more_2():
    assert sum_latest([1, 7, 1], 1) == 1
