from minipicks import index_of_min, min_value


def test_index_of_min_more_1():
    assert index_of_min([2, 2]) == 0


def test_index_of_min_more_2():
    assert index_of_min([5, 0, 0, 3]) == 1


def test_index_of_min_more_3():
    assert index_of_min([1, 1, 4]) == 0


def test_index_of_min_more_4():
    assert index_of_min([0, 1, 4, 4, 3]) == 0


def test_min_value_more_1():
    assert min_value([5, 0, 0, 3]) == 0
