from microslices import after_first, head


def test_head():
    assert head([], 2) == []
    assert head([], 3) == []
    assert head([], 1) == []


def test_head_edge_case():
    assert head([2, 5, 3, 5], 1) == [2]


def test_head_edge_case_2():
    assert head([2, 5, 3, 5], 3) == [2, 5, 3]


def test_after_first():
    assert after_first([4, 5, 0, 0], 1) == [5, 0, 0]
    assert after_first([], 2) == []
    assert after_first([3, 7], 0) == [3, 7]
