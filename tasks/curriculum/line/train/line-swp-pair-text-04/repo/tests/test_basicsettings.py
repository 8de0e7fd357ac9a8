from basicsettings import format_all, pair_text


def test_pair_text_edge_case():
    assert pair_text('x', 'y') == 'x=y'


def test_pair_text_edge_case_2():
    assert pair_text('debug', True) == 'debug=True'


def test_format_all():
    assert format_all({}) == ''


def test_format_all_edge_case():
    assert format_all({'b': 2, 'a': 'z'}) == 'a=z, b=2'
