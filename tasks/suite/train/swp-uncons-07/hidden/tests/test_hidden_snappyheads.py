from snappyheads import rest_length, uncons


def test_uncons_more_1():
    assert uncons([4, 6, 3, 5, 7]) == (4, [6, 3, 5, 7])


def test_uncons_more_2():
    assert uncons([9, 7, 6, 1, 4]) == (9, [7, 6, 1, 4])


def test_rest_length_more_1():
    assert rest_length([3, 8, 0, 2, 1]) == 4
