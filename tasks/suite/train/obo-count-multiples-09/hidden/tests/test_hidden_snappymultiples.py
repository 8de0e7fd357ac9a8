from snappymultiples import count_multiples


def test_count_multiples_more_1():
    assert count_multiples(4, 2) == 2


def test_count_multiples_more_2():
    assert count_multiples(6, 3) == 2


def test_count_multiples_more_3():
    assert count_multiples(10, 3) == 3


def test_count_multiples_more_4():
    assert count_multiples(7, 4) == 1
