from quickslices import drop, head


def test_head():
    assert head([8, 2], 3) == [8, 2]
    assert head([], 2) == []
    assert head([], 0) == []


def test_head_edge_case():
    assert head([8, 2], 2) == [8, 2]


def test_head_edge_case_2():
    assert head([3, 0, 9], 0) == []


def test_drop():
    assert drop([], 2) == []
    assert drop([], 0) == []
    assert drop([], 1) == []
