from plainsliding import best_window, window_sums


def test_window_sums_more_1():
    assert window_sums([8, 0, 8, 3, 0, 7, 6], 3) == [16, 11, 11, 10, 13]


def test_window_sums_more_2():
    assert window_sums([2, 4, 8, 2, 3], 2) == [6, 12, 10, 5]


def test_best_window_more_1():
    assert best_window([8, 0, 8, 3, 0, 7, 6], 3) == 16
