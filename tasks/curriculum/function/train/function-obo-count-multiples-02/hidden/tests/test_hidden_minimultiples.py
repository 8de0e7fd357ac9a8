from minimultiples import count_multiples


def test_count_multiples_more_1():
    assert count_multiples(4, 3) == 1


def test_count_multiples_more_2():
    assert count_multiples(5, 3) == 1


def test_count_multiples_more_3():
    assert count_multiples(6, 3) == 2


def test_count_multiples_more_4():
    assert count_multiples(9, 3) == 3
