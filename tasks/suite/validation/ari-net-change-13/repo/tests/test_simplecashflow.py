from simplecashflow import breaks_even, loud, net_change


def test_loud():
    assert loud('hi') == 'HI!'
    assert loud('') == '!'
    assert loud('Go on') == 'GO ON!'


def test_net_change():
    assert net_change([], []) == 0
    assert net_change([18], []) == 18
    assert net_change([1, 2, 3], []) == 6


def test_net_change_edge_case():
    assert net_change([10], [10, 5, 17]) == -22


def test_net_change_edge_case_2():
    assert net_change([], [11, 17, 17]) == -45


def test_breaks_even():
    assert breaks_even([0, 0, 12], [5, 5]) is True
    assert breaks_even([0, 0, 12], []) is True
    assert breaks_even([], []) is True
