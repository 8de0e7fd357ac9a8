from neatprefix import last_total, running_totals


def test_running_totals_more_1():
    assert running_totals([3]) == [3]


def test_running_totals_more_2():
    assert running_totals([1, 3]) == [1, 4]


def test_last_total_more_1():
    assert last_total([3]) == 3
