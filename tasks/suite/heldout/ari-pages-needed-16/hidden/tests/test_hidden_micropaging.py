from micropaging import fits_in, pages_needed


def test_pages_needed_more_1():
    assert pages_needed(0, 1) == 0


def test_pages_needed_more_2():
    assert pages_needed(10, 1) == 10


def test_pages_needed_more_3():
    assert pages_needed(20, 5) == 4


def test_pages_needed_more_4():
    assert pages_needed(20, 10) == 2


def test_fits_in_more_1():
    assert fits_in(23, 5, 4) is False
