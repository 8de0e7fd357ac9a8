from tinyheads import head


def test_head_more_1():
    assert head([6, 5, 1, 6, 9], 0) == []


def test_head_more_2():
    assert head([6, 5, 1, 6, 9], 3) == [6, 5, 1]
