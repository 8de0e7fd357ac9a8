from snappydivisors import count_multiples


def test_count_multiples_more_1():
    assert count_multiples(5, 2) == 2


def test_count_multiples_more_2():
    assert count_multiples(6, 2) == 3


def test_count_multiples_more_3():
    assert count_multiples(8, 2) == 4


def test_count_multiples_more_4():
    assert count_multiples(3, 4) == 0
