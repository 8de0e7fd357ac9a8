from minisplits import cut_at, split_middle


def test_cut_at_more_1():
    assert cut_at([9, 3, 9], 1) == ([9], [3, 9])


def test_cut_at_more_2():
    assert cut_at([8, 8, 6, 2, 7], 0) == ([], [8, 8, 6, 2, 7])


def test_split_middle_more_1():
    assert split_middle([8, 8, 6, 2, 7]) == ([8, 8], [6, 2, 7])
