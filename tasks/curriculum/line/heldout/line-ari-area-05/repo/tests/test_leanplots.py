from leanplots import area, fence_length


def test_area():
    assert area(0, 0) == 0
    assert area(2, 2) == 4


def test_area_edge_case():
    assert area(2, 5) == 10


def test_area_edge_case_2():
    assert area(7, 3) == 21


def test_fence_length():
    assert fence_length(1, 1) == 4
    assert fence_length(0, 0) == 0
    assert fence_length(3, 2) == 10
