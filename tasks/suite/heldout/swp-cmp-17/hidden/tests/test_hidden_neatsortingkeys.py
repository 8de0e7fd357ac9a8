from neatsortingkeys import all_compared, cmp


def test_cmp_more_1():
    assert cmp(1, 0) == 1


def test_cmp_more_2():
    assert cmp(2, 5) == -1


def test_cmp_more_3():
    assert cmp(5, 5) == 0


def test_all_compared_more_1():
    assert all_compared([(3, 1), (2, 2)]) == [1, 0]


def test_all_compared_more_2():
    assert all_compared([(0, 5), (5, 0), (4, 4)]) == [-1, 1, 0]
