from quicklists import head_tail, rest_length


def test_head_tail_edge_case():
    assert head_tail([9, 5, 6, 9]) == (9, [5, 6, 9])


def test_head_tail_edge_case_2():
    assert head_tail([6, 2, 1, 5, 2]) == (6, [2, 1, 5, 2])


def test_rest_length_edge_case():
    assert rest_length([6, 2, 1, 5, 2]) == 4
