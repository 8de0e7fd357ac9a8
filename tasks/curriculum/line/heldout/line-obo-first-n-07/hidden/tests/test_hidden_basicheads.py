from basicheads import first_n


def test_first_n_more_1():
    assert first_n([2, 1, 3, 7], 2) == [2, 1]


def test_first_n_more_2():
    assert first_n([6], 1) == [6]
