from quickslices import head


def test_head_more_1():
    assert head([3, 0, 9], 2) == [3, 0]


def test_head_more_2():
    assert head([3, 0, 9], 3) == [3, 0, 9]
