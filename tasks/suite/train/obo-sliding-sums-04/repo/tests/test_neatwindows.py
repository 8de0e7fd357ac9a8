from neatwindows import peak_run, sliding_sums


def test_sliding_sums():
    assert sliding_sums([9], 3) == []
    assert sliding_sums([4], 2) == []
    assert sliding_sums([], 2) == []


def test_sliding_sums_edge_case():
    assert sliding_sums([9, 9, 1, 4, 5, 7], 2) == [18, 10, 5, 9, 12]


def test_sliding_sums_edge_case_2():
    assert sliding_sums([4], 1) == [4]


def test_peak_run():
    assert peak_run([8, 8, 6, 9, 9, 6], 2) == 18
    assert peak_run([4], 2) == 0
    assert peak_run([8, 8, 6, 9, 9, 6], 3) == 24
