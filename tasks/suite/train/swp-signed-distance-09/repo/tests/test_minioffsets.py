from minioffsets import offsets, signed_distance, word_count


def test_word_count():
    assert word_count('one') == 1
    assert word_count('a b  c') == 3
    assert word_count('') == 0


def test_signed_distance():
    assert signed_distance(3, 3) == 0
    assert signed_distance(0, 0) == 0


def test_signed_distance_edge_case():
    assert signed_distance(0, 8) == 8


def test_signed_distance_edge_case_2():
    assert signed_distance(-2, 3) == 5


def test_offsets():
    assert offsets(0, [0]) == [0]
    assert offsets(3, []) == []
    assert offsets(0, []) == []


def test_offsets_edge_case():
    assert offsets(3, [10]) == [7]
