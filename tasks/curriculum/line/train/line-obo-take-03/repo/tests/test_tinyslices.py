from tinyslices import after_first, take


def test_take():
    assert take([], 2) == []
    assert take([3], 0) == []
    assert take([], 1) == []


def test_take_edge_case():
    assert take([0, 4, 8, 6, 3, 5], 1) == [0]


def test_take_edge_case_2():
    assert take([9, 3, 5, 5, 4], 2) == [9, 3]


def test_after_first():
    assert after_first([3], 3) == []
    assert after_first([9, 3, 5, 5, 4], 1) == [3, 5, 5, 4]
    assert after_first([0, 4, 8, 6, 3, 5], 2) == [8, 6, 3, 5]
