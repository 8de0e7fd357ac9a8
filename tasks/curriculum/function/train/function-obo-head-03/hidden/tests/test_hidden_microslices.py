from microslices import head


def test_head_more_1():
    assert head([4, 5, 0, 0], 0) == []


def test_head_more_2():
    assert head([2, 5, 3, 5], 0) == []
