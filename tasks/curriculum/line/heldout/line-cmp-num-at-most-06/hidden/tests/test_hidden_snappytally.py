from snappytally import num_at_most


def test_num_at_most_more_1():
    assert num_at_most([0, 2, 8, 5, 3], 3) == 3


def test_num_at_most_more_2():
    assert num_at_most([2, 3, 2], 2) == 2
