from micropaging import fits_in, pages_needed


def test_pages_needed_edge_case():
    assert pages_needed(11, 5) == 3


def test_pages_needed_edge_case_2():
    assert pages_needed(11, 3) == 4


def test_fits_in():
    assert fits_in(0, 1, 2) is True
    assert fits_in(1, 5, 4) is True
    assert fits_in(9, 1, 4) is False


def test_fits_in_edge_case():
    assert fits_in(10, 5, 1) is False
