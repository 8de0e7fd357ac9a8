from plainconfig import format_all, pair_text


def test_pair_text_edge_case():
    assert pair_text('a', 1) == 'a=1'


def test_pair_text_edge_case_2():
    assert pair_text('name', 'box') == 'name=box'


def test_format_all():
    assert format_all({}) == ''
