from tinycountdown import announce, descending


def test_descending_more_1():
    assert descending(3) == [3, 2, 1]


def test_descending_more_2():
    assert descending(5) == [5, 4, 3, 2, 1]


def test_announce_more_1():
    assert announce(2) == '2 1 go'
