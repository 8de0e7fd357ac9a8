from littleaverages import above_average, mean, shout


def test_mean():
    assert mean([4]) == 4
    assert mean([]) == 0


def test_mean_edge_case():
    assert mean([9, 9]) == 9


def test_mean_edge_case_2():
    assert mean([3, 3, 3]) == 3


def test_above_average():
    assert above_average([3, 3, 3]) == []
    assert above_average([4]) == []
    assert above_average([]) == []


def test_shout():
    assert shout('hi') == 'HI!'
    assert shout('') == '!'
    assert shout('Go on') == 'GO ON!'
