from snappysplits import partition_at, split_middle


def test_partition_at_more_1():
    assert partition_at([1], 1) == ([1], [])


def test_partition_at_more_2():
    assert partition_at([8, 2, 3, 9], 3) == ([8, 2, 3], [9])


def test_split_middle_more_1():
    assert split_middle([3, 5, 0]) == ([3], [5, 0])
