from plainsliding import best_window, is_even, window_sums


def test_window_sums():
    assert window_sums([], 2) == []
    assert window_sums([], 3) == []
    assert window_sums([4], 2) == []


def test_window_sums_edge_case():
    assert window_sums([8, 0, 8, 3, 0, 7, 6], 2) == [8, 8, 11, 3, 7, 13]


def test_window_sums_edge_case_2():
    assert window_sums([1], 1) == [1]


def test_best_window():
    assert best_window([], 3) == 0
    assert best_window([], 2) == 0
    assert best_window([1], 3) == 0


def test_is_even():
    assert is_even(1) is False
    assert is_even(7) is False
    assert is_even(2) is True
