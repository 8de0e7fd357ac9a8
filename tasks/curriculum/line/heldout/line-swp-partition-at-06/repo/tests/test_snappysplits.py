from snappysplits import partition_at, split_middle


def test_partition_at():
    assert partition_at([], 3) == ([], [])
    assert partition_at([], 2) == ([], [])
    assert partition_at([], 0) == ([], [])


def test_partition_at_edge_case():
    assert partition_at([3, 5, 0], 0) == ([], [3, 5, 0])


def test_partition_at_edge_case_2():
    assert partition_at([3, 5, 0], 2) == ([3, 5], [0])


def test_split_middle():
    assert split_middle([]) == ([], [])


def test_split_middle_edge_case():
    assert split_middle([8, 2, 3, 9]) == ([8, 2], [3, 9])
