from littlecounts import count_above


def test_count_above_more_1():
    assert count_above([7], 7) == 0


def test_count_above_more_2():
    assert count_above([0, 7, 7], 7) == 0


def test_count_above_more_3():
    assert count_above([0, 6, 0, 2, 1, 0], 5) == 1


def test_count_above_more_4():
    assert count_above([4, 9, 6, 1, 1, 7], 4) == 3
