from simplecashflow import breaks_even, net_change


def test_net_change_more_1():
    assert net_change([18], [10, 5, 17]) == -14


def test_net_change_more_2():
    assert net_change([1, 2, 3], [5, 5]) == -4


def test_breaks_even_more_1():
    assert breaks_even([], [11, 17, 17]) is False
